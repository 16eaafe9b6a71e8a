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
 * - durable write: the same copy at the sync's durability bound, which one transaction is not (a kill would lose the
 *   whole backfill, hours of a key's requests at its real rate): a kill may lose at most TRANSACTION_MS of fetching
 *   or TRANSACTION_ROWS rows, so the fewest transactions a sync of `wallMs` and these rows may commit is the larger of
 *   wallMs ÷ TRANSACTION_MS and rows ÷ TRANSACTION_ROWS. The copy in that many transactions of equal shares of every
 *   table (rowid ranges), then a checkpoint, the cheaper of two ways: a checkpoint whenever the WAL passes the
 *   loader's WAL_CHECKPOINT_BYTES, or none until the end (DuckDB's own threshold raised meanwhile: below it DuckDB
 *   would checkpoint at every commit, which costs more); the least of `FLOOR_REPEATS` of each. Less what reading the
 *   source in those slices costs over reading it once (the same slices hashed, every column, against one pass), so
 *   that the two floors read alike. DuckDB's own writer at the bound any sync must keep: what the flatness with
 *   history is judged against (bench/sync-cpu).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allEndpoints } from '../src/api/catalogue.js';
import type { EndpointDef } from '../src/api/endpoint.js';
import { fullPath } from '../src/api/paths.js';
import { decodeEnvelope } from '../src/client/envelope.js';
import type { Transport, TransportRequest, TransportResponse } from '../src/client/transport.js';
import { TRANSACTION_MS, TRANSACTION_ROWS } from '../src/warehouse/loader.js';
import type { Session } from '../src/warehouse/session.js';
import { deadRows } from '../src/warehouse/vacuum.js';
import { WAL_CHECKPOINT_BYTES, walBytes } from '../src/warehouse/wal-checkpoint.js';
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
  /** The fewest transactions the sync's durability bound allows for these rows and this long a sync. */
  durable_transactions: number;
  /** The durable copy's CPU with a checkpoint past the loader's WAL limit, and with one at the end only. */
  durable_copy_ms: { wal_limit: number; end_only: number };
  /** What reading the source in the durable copy's slices costs over one pass (taken out of the durable write). */
  durable_read_over_ms: number;
  durable_write_ms: number;
  /** parse + the durable write. */
  durable_floor_ms: number;
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
  wallMs: number,
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

  const counts = Object.fromEntries((await deadRows(session)).map((t) => [t.table, t.rows]));
  const rows = Object.values(counts).reduce((a, b) => a + b, 0);
  const durable = durableTransactions(wallMs, rows);
  let writeMs = Number.POSITIVE_INFINITY;
  const copyMs = { wal_limit: Number.POSITIVE_INFINITY, end_only: Number.POSITIVE_INFINITY };
  const readMs = { once: Number.POSITIVE_INFINITY, sliced: Number.POSITIVE_INFINITY };
  for (let i = 0; i < FLOOR_REPEATS; i++) {
    writeMs = Math.min(writeMs, await writeOnce(session, counts, 1, WAL_CHECKPOINT_BYTES));
    copyMs.wal_limit = Math.min(copyMs.wal_limit, await writeOnce(session, counts, durable, WAL_CHECKPOINT_BYTES));
    copyMs.end_only = Math.min(copyMs.end_only, await writeOnce(session, counts, durable, undefined));
    readMs.once = Math.min(readMs.once, await readInSteps(session, counts, 1));
    readMs.sliced = Math.min(readMs.sliced, await readInSteps(session, counts, durable));
  }
  const readOver = Math.max(0, readMs.sliced - readMs.once);
  const durableMs = Math.min(copyMs.wal_limit, copyMs.end_only) - readOver;
  return {
    sampled_bodies: items.length,
    sample_every: sampleEvery,
    repeats: FLOOR_REPEATS,
    parse_ms: Math.round(parseMs),
    write_ms: Math.round(writeMs),
    floor_ms: Math.round(parseMs + writeMs),
    durable_transactions: durable,
    durable_copy_ms: { wal_limit: Math.round(copyMs.wal_limit), end_only: Math.round(copyMs.end_only) },
    durable_read_over_ms: Math.round(readOver),
    durable_write_ms: Math.round(durableMs),
    durable_floor_ms: Math.round(parseMs + durableMs),
  };
}

/**
 * The fewest transactions a sync of `wallMs` landing `rows` rows may commit at its durability bound: a kill loses at
 * most TRANSACTION_MS of fetching and TRANSACTION_ROWS rows.
 */
export function durableTransactions(wallMs: number, rows: number): number {
  return Math.max(1, Math.ceil(wallMs / TRANSACTION_MS), Math.ceil(rows / TRANSACTION_ROWS));
}

/** The rowid range of step `step` of `steps` equal shares of `n` rows. */
function slice(n: number, step: number, steps: number): { from: number; to: number } {
  return { from: Math.floor((n * step) / steps), to: Math.floor((n * (step + 1)) / steps) };
}

/**
 * Copies the rows of the `counts` tables from `source`.raw into `target`.raw with DuckDB's own `INSERT … SELECT`, in
 * `steps` transactions of equal shares of every table (rowid ranges), a `CHECKPOINT target` whenever the file `wal`
 * passes `walLimit` bytes (never, when undefined), then one; returns the CPU (user + sys, all threads) of it all.
 */
export async function copyInSteps(
  session: Session,
  counts: Readonly<Record<string, number>>,
  steps: number,
  into: { source: string; target: string; wal: string; walLimit: number | undefined },
): Promise<number> {
  const start = cpuMs();
  for (let step = 0; step < steps; step++) {
    await session.transaction(async () => {
      for (const [table, n] of Object.entries(counts)) {
        const { from, to } = slice(n, step, steps);
        if (to > from)
          await session.run(
            `INSERT INTO ${into.target}.raw."${table}" SELECT * FROM ${into.source}.raw."${table}" WHERE rowid >= ${from} AND rowid < ${to}`,
          );
      }
    });
    if (into.walLimit !== undefined && walBytes(into.wal) > into.walLimit)
      await session.run(`CHECKPOINT ${into.target}`);
  }
  await session.run(`CHECKPOINT ${into.target}`);
  return cpuMs() - start;
}

/**
 * The CPU of reading every column of the `counts` tables of raw.* in `steps` slices (each slice's every column
 * hashed: no value left unread).
 */
async function readInSteps(session: Session, counts: Readonly<Record<string, number>>, steps: number): Promise<number> {
  const start = cpuMs();
  for (let step = 0; step < steps; step++)
    for (const [table, n] of Object.entries(counts)) {
      const { from, to } = slice(n, step, steps);
      if (to > from)
        await session.run(
          `SELECT bit_xor(hash(COLUMNS(*))) FROM raw."${table}" WHERE rowid >= ${from} AND rowid < ${to}`,
        );
    }
  return cpuMs() - start;
}

/**
 * The CPU of one copy of every raw table into a new database file in `steps` transactions (see the module's
 * comment), a checkpoint past `walLimit` bytes of WAL (at the end only, when undefined); DuckDB's own checkpoint
 * threshold raised to that meanwhile.
 */
async function writeOnce(
  session: Session,
  counts: Readonly<Record<string, number>>,
  steps: number,
  walLimit: number | undefined,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-floor-'));
  const threshold = await session.scalar<string>("SELECT current_setting('checkpoint_threshold')");
  try {
    const file = join(dir, 'floor.duckdb');
    await session.run(`ATTACH '${file}' AS floor`);
    await session.run('CREATE SCHEMA floor.raw');
    for (const t of Object.keys(counts))
      await session.run(`CREATE TABLE floor.raw."${t}" AS SELECT * FROM raw."${t}" LIMIT 0`);
    await session.run(`SET checkpoint_threshold = '${walLimit === undefined ? '1TiB' : `${walLimit / 2 ** 20}MiB`}'`);
    const source = `"${await session.scalar<string>('SELECT current_database()')}"`;
    const writeMs = await copyInSteps(session, counts, steps, {
      source,
      target: 'floor',
      wal: `${file}.wal`,
      walLimit,
    });
    await session.run('DETACH floor');
    return writeMs;
  } finally {
    await session.run(`SET checkpoint_threshold = '${threshold}'`);
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
