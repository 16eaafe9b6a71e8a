/**
 * A bench world landed into raw.* without HTTP: the simulated reference world (src/reference) answers in process
 * (`createReference`: the same application, the simulated `Date` header, no socket, no faults) and the product's own
 * sync (`syncTeam`: discovery, plan, every stream's declaration and row mapping, zod on every item, the loader, the
 * state) lands it, with `vwh sync`'s defaults (`SYNC_DEFAULTS`). Only the transport differs from a real sync, so
 * raw.* is the sync's, row for row (bench/test/land-world.test.ts holds it equal to `vwh sync` over HTTP). Memory is
 * the sync's: units of one stream × parent × ≤ 31 days, fetching paused while the warehouse is behind.
 *
 *   node dist/bench/land-world.js --world SEED,PROJECTS,PROMPTS,DAYS --out FILE.duckdb [--today YYYY-MM-DD]
 *                                 [--nights N]
 *
 * `--nights N` lands N nights into FILE, which the backfill of the same world and --today filled (and benches may have
 * built since): the reference is brought to the state the backfill left it in (the backfill's one read that changes
 * it, asked again), then its clock moves on a day at a time and each night is the sync a night runs (the lookback and
 * the rotation included). Prints the landing's figures as JSON on stdout.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transport } from '../src/client/transport.js';
import { addDays } from '../src/core/days.js';
import { silentLogger } from '../src/core/log.js';
import {
  control,
  createReference,
  type InProcessReference,
  type ReferenceServerOptions,
} from '../src/reference/index.js';
import { silentProgress } from '../src/sync/progress.js';
import { SYNC_DEFAULTS } from '../src/sync/run.js';
import { syncTeam } from '../src/sync/team-sync.js';
import { Warehouse } from '../src/warehouse/warehouse.js';

/** The reference world: seed and the demo team's projects × prompts × days of history. */
export interface WorldSpec {
  seed: number;
  projects: number;
  prompts: number;
  days: number;
  /** Planted step changes of each project's own brand (the reference's `ownShifts`); none when absent. */
  ownShifts?: number;
}

export interface LandOptions {
  world: WorldSpec;
  /** The warehouse file (created, or an earlier landing's when `nights` > 0). */
  out: string;
  /** The API's day of the first landing (default 2026-11-20, the benches' day). */
  today?: string;
  /** Nights landed after the reference clock moved on by a day each (0: the first landing, a backfill). */
  nights?: number;
  /** The team id every row carries (default `default`, as `vwh sync` without a config). */
  teamId?: string;
}

export interface LandResult {
  world: WorldSpec;
  /** The API's day of the last sync. */
  today: string;
  syncs: number;
  requests: number;
  units: number;
  rows: number;
  /** The sync's status of each landing (`succeeded` unless something is wrong). */
  statuses: string[];
  wall_ms: number;
}

export const BENCH_TODAY = '2026-11-20';
/** The reference's rate window (and the client's): short enough that the budget never waits. */
const WINDOW_MS = 1;

/** The client's transport answered by the reference application in process. */
export function inProcess(reference: InProcessReference): Transport {
  return {
    request: ({ method, url, headers, body }) => reference.request({ method, url, headers, body }),
    close: async () => {},
  };
}

export function parseWorld(text: string): WorldSpec {
  const parts = text.split(',').map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`--world wants SEED,PROJECTS,PROMPTS,DAYS (four whole numbers >= 1), not ${JSON.stringify(text)}`);
  }
  const [seed, projects, prompts, days] = parts as [number, number, number, number];
  return { seed, projects, prompts, days };
}

/** A world with its label: `1x=5,10,50,365;10x=5,100,50,365` → one per `;`. */
export function parseSizes(spec: string): Array<WorldSpec & { label: string }> {
  return spec.split(';').map((part) => {
    const [label, world] = part.split('=');
    if (!label || !world) throw new Error(`a size is LABEL=SEED,PROJECTS,PROMPTS,DAYS, not ${JSON.stringify(part)}`);
    return { label, ...parseWorld(world) };
  });
}

/** The in-process reference of the world on its day `today`, its rate window too short to wait on. */
export function referenceOptions(world: WorldSpec, today: string): ReferenceServerOptions {
  return {
    seed: world.seed,
    projects: world.projects,
    prompts: world.prompts,
    historyDays: world.days,
    ...(world.ownShifts ? { ownShifts: world.ownShifts } : {}),
    today,
    demo: true,
    rateWindowMs: WINDOW_MS,
  };
}

/** Lands the world (or its next nights) into `out` through the sync; throws when a landing does not succeed. */
export async function landWorld(options: LandOptions): Promise<LandResult> {
  const { world } = options;
  const first = options.today ?? BENCH_TODAY;
  const nights = options.nights ?? 0;
  const start = performance.now();
  const reference = createReference(referenceOptions(world, first));
  mkdirSync(dirname(resolve(options.out)), { recursive: true });
  const warehouse = await Warehouse.open(options.out);
  const result: LandResult = {
    world,
    today: first,
    syncs: 0,
    requests: 0,
    units: 0,
    rows: 0,
    statuses: [],
    wall_ms: 0,
  };
  const sync = (into: Warehouse, today: string, streams?: string[]) => {
    const { concurrency, ...defaults } = SYNC_DEFAULTS;
    return syncTeam({
      warehouse: into,
      teamId: options.teamId ?? 'default',
      baseUrl: 'http://reference.invalid',
      apiKey: reference.demoApiKey ?? '',
      settings: { today, ...defaults },
      ...(streams ? { streams } : {}),
      concurrency,
      rate: { windowMs: WINDOW_MS },
      transport: inProcess(reference),
      logger: silentLogger,
      progress: silentProgress,
    });
  };
  try {
    if (nights > 0) {
      // The reference as the backfill left it: its one read that changes it (GET pending competitors turns the
      // brands the world detected into pending competitors, which later answers then name) asked again on its day.
      const scratch = await Warehouse.open(':memory:');
      try {
        const replay = await sync(scratch, first, ['competitors']);
        if (replay.status !== 'succeeded')
          throw new Error(`replaying the backfill's competitors ended ${replay.status}`);
      } finally {
        scratch.close();
      }
    }
    const days = nights === 0 ? [first] : Array.from({ length: nights }, (_, i) => addDays(first, i + 1));
    for (const today of days) {
      if (today !== first) control.advanceClock(reference.state, { days: 1 });
      const team = await sync(warehouse, today);
      result.statuses.push(team.status);
      if (team.status !== 'succeeded') {
        throw new Error(
          `the landing of ${today} ended ${team.status}: ${team.error?.message ?? JSON.stringify(team.failedUnits.slice(0, 3))}`,
        );
      }
      result.today = today;
      result.syncs++;
      result.requests += team.counters.requests;
      result.units += team.counters.unitsDone;
      result.rows += Object.values(team.counters.rowsPerTable ?? {}).reduce((a, b) => a + b, 0);
    }
  } finally {
    warehouse.close();
    reference.close();
  }
  result.wall_ms = Math.round(performance.now() - start);
  return result;
}

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
}

async function cli(args: string[]): Promise<void> {
  const world = flag(args, '--world');
  const out = flag(args, '--out');
  if (!world || !out) {
    process.stderr.write(
      'usage: node dist/bench/land-world.js --world SEED,PROJECTS,PROMPTS,DAYS --out FILE.duckdb [--today YYYY-MM-DD] [--nights N]\n',
    );
    process.exit(64);
  }
  const nights = Number(flag(args, '--nights') ?? 0);
  const result = await landWorld({ world: parseWorld(world), out, today: flag(args, '--today'), nights });
  const usage = process.resourceUsage();
  process.stdout.write(
    `${JSON.stringify({ ...result, cpu_ms: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000), max_rss_mb: Math.round(usage.maxRSS / 1024) })}\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`land-world: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
