/**
 * The floor of a backfill's CPU, computed in the same process right after the sync (bench/sync-cpu): what any sync
 * of the same bodies into the same raw tables must spend at least.
 *
 * - parse: JSON.parse of a sample of the bodies the sync received (every `sampleEvery`-th 2xx response, recorded by
 *   `RecordingTransport`) and the zod validation of each with its endpoint's schema, the CPU scaled to all requests;
 *   the least of `FLOOR_REPEATS` runs;
 * - write: DuckDB's own writer at its best: every row the sync landed in `raw.*`, copied by one
 *   `INSERT INTO … SELECT *` per table into empty tables of the same columns in a new database file, in ONE
 *   transaction, then a checkpoint (the rows compressed once). No JavaScript values at all; the copy also reads and
 *   decompresses the source tables, so this floor is, if anything, high; the least of `FLOOR_REPEATS` copies, each
 *   into a new file.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allEndpoints } from '../src/api/catalogue.js';
import type { EndpointDef } from '../src/api/endpoint.js';
import { fullPath } from '../src/api/paths.js';
import { decodeEnvelope } from '../src/client/envelope.js';
import type { Transport, TransportRequest, TransportResponse } from '../src/client/transport.js';
import type { Session } from '../src/warehouse/session.js';
import { cpuMs } from './lib.js';

/**
 * Each part of the floor is the least of this many runs. One run's parse of the same sample took 9.2-16.0 s in
 * three runs of the bench on 27 Nov (the GC of the sync's garbage, the host): the least is the floor's best estimate.
 */
export const FLOOR_REPEATS = 3;

export interface Floor {
  sampled_bodies: number;
  sample_every: number;
  /** Each part is the least CPU of this many runs. */
  repeats: number;
  parse_ms: number;
  write_ms: number;
  floor_ms: number;
}

/**
 * A transport that keeps every `sampleEvery`-th successful body (and its method and URL) it passes through, in a
 * temporary file rather than in memory: a 365-day backfill's sample is hundreds of megabytes, which held in the
 * sync's process would count in its peak RSS.
 */
export class RecordingTransport implements Transport {
  private readonly dir = mkdtempSync(join(tmpdir(), 'vwh-bodies-'));
  private readonly file = join(this.dir, 'bodies');
  private readonly kept: Array<{ method: string; url: string; bytes: number }> = [];
  private seen = 0;

  constructor(
    private readonly inner: Transport,
    private readonly sampleEvery: number,
  ) {}

  async request(request: TransportRequest): Promise<TransportResponse> {
    const response = await this.inner.request(request);
    if (response.status >= 200 && response.status < 300 && this.seen++ % this.sampleEvery === 0) {
      const bytes = Buffer.from(response.text);
      appendFileSync(this.file, bytes);
      this.kept.push({ method: request.method, url: request.url, bytes: bytes.length });
    }
    return response;
  }

  /** The kept bodies, read back from the file. */
  bodies(): Array<{ method: string; url: string; text: string }> {
    if (this.kept.length === 0) return [];
    const all = readFileSync(this.file);
    let at = 0;
    return this.kept.map(({ method, url, bytes }) => {
      const text = all.toString('utf8', at, at + bytes);
      at += bytes;
      return { method, url, text };
    });
  }

  /** Removes the file of kept bodies. */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The endpoint a URL path answers, by its route pattern (`{name}` → one path segment). */
function matcher(): (method: string, path: string) => EndpointDef | undefined {
  const routes = allEndpoints().map((def) => {
    const names = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    const marker = Object.fromEntries(names.map((n) => [n, `__${n}__`]));
    const pattern = fullPath(def, marker)
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/__\w+__/g, '[^/]+');
    return { def, re: new RegExp(`^${pattern}$`) };
  });
  return (method, path) => routes.find((r) => r.def.method.toUpperCase() === method && r.re.test(path))?.def;
}

/** The floor's two parts (see the module's comment), for `requests` requests and the rows now in `raw.*`. */
export async function measureFloor(
  session: Session,
  recorded: RecordingTransport,
  requests: number,
  sampleEvery: number,
): Promise<Floor> {
  const match = matcher();
  const items = recorded.bodies().map((b) => ({ ...b, def: match(b.method, new URL(b.url).pathname) }));
  const unknown = items.filter((i) => !i.def).map((i) => i.url);
  if (unknown.length > 0) throw new Error(`floor: no endpoint for ${unknown.slice(0, 3).join(', ')}`);
  const parseMs =
    (leastOf(FLOOR_REPEATS, () => {
      for (const { text, def } of items) {
        const d = def as EndpointDef;
        const decoded = decodeEnvelope(d.envelope, JSON.parse(text));
        if (decoded.ok) d.data.safeParse(decoded.data);
      }
    }) *
      requests) /
    Math.max(1, items.length);

  const tables = await session.all<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'raw' AND table_catalog = current_database() ORDER BY 1",
  );
  let writeMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < FLOOR_REPEATS; i++) writeMs = Math.min(writeMs, await writeOnce(session, tables));
  return {
    sampled_bodies: items.length,
    sample_every: sampleEvery,
    repeats: FLOOR_REPEATS,
    parse_ms: Math.round(parseMs),
    write_ms: Math.round(writeMs),
    floor_ms: Math.round(parseMs + writeMs),
  };
}

/** The CPU of one copy of every raw table into a new database file (see the module's comment). */
async function writeOnce(session: Session, tables: ReadonlyArray<{ table_name: string }>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-floor-'));
  try {
    await session.run(`ATTACH '${join(dir, 'floor.duckdb')}' AS floor`);
    await session.run('CREATE SCHEMA floor.raw');
    for (const { table_name: t } of tables)
      await session.run(`CREATE TABLE floor.raw."${t}" AS SELECT * FROM raw."${t}" LIMIT 0`);
    const writeStart = cpuMs();
    await session.run('BEGIN TRANSACTION');
    for (const { table_name: t } of tables) await session.run(`INSERT INTO floor.raw."${t}" SELECT * FROM raw."${t}"`);
    await session.run('COMMIT');
    await session.run('CHECKPOINT floor');
    const writeMs = cpuMs() - writeStart;
    await session.run('DETACH floor');
    return writeMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The least CPU of `times` runs of `work`: noise (a GC of the sync's garbage, another process) only ever adds. */
function leastOf(times: number, work: () => void): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i++) {
    const start = cpuMs();
    work();
    least = Math.min(least, cpuMs() - start);
  }
  return least;
}
