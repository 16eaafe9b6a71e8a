/**
 * CPU per request of backfills (not a timed bench; run by hand): per world, a reference server and one `vwh sync`-like
 * process (the sync-scale bench's child), one world after the other, optionally under `--cpu-prof`. Prints and
 * writes (bench/results/sync-cpu.json, unless profiling) the sync process's user + sys CPU ÷ requests per world, by
 * thread, with the load average, and the last world's CPU per request ÷ the first's (the growth with history). After
 * the backfills, `NIGHTS` nights on each world's warehouse, alternating between the worlds (the server's clock a day
 * on, a sync process each): the same requests and rows a night whatever the history, so their CPU per request, last
 * world ÷ first, is the growth with history alone, where the backfills' ratio also carries their different requests
 * (a 365-day backfill's carry twice the rows).
 *
 *   node dist/bench/sync-cpu.js 10x50x30 10x50x365 [--cpu-prof DIR]
 *
 * VWH_BENCH_THREADS sets the sync's DuckDB threads (default: the warehouse's).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDays } from '../src/core/days.js';
import { round2, startServeChild, writeResult } from './lib.js';
import { FLOOR_REPEATS, type Floor } from './sync-floor.js';
import { LOOKBACK_DAYS, type Run } from './sync-scale-run.js';

const args = process.argv.slice(2);
const profAt = args.indexOf('--cpu-prof');
const profileDir = profAt >= 0 ? args[profAt + 1] : undefined;
const worlds = args.filter((a, i) => (profAt < 0 || i !== profAt + 1) && /^\d+x\d+x\d+$/.test(a));
if (worlds.length === 0) worlds.push('3x20x60');
const TODAY = '2026-11-20';
const WINDOW_MS = 2500;
/** The floor parses every 10th body (the bodies of a 365-day backfill are gigabytes), its CPU scaled to all. */
const FLOOR_SAMPLE_EVERY = 10;
/**
 * Nights after the backfills, alternating between the worlds: six each, as one night's CPU per request moved by
 * 8-20 % between nights (27 Nov), and in some runs the first nights after a 365-day backfill cost up to 1.7 x the
 * later ones (the days they re-land are days of the backfill, whose rows every row group of a 365-day backfill holds,
 * so their DELETEs scan all of those row groups; and their checkpoint costs more, for a reason not found: docs/lab/2026-11-sync-cpu.md).
 * The nights whose lookback starts after the backfill's last day are also reported on their own (`settled`).
 */
const NIGHTS = 6;
/**
 * Issue 28's flatness: a backfill's CPU per request at the last world ≤ this × the first's; where the durable floor
 * allows no flatter, at least this share of what it allows (see `flatnessOf`).
 */
const FLAT_TARGET = 1.2;
const FLOOR_SHARE = 0.8;

function syncChild(input: object): Promise<Run> {
  const script = fileURLToPath(new URL('./sync-scale-run.js', import.meta.url));
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, script, JSON.stringify(input)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as Run) : reject(new Error(`exit ${code}`)),
    );
  });
}

const load = () => Number(loadavg()[0]?.toFixed(2));

/** Nights' requests and CPU summed, and CPU ÷ requests. */
interface NightTally {
  requests: number;
  sync_cpu_ms: number;
  cpu_per_request_ms: number;
}

/** Adds a night's sync to `tally`. */
function tallyNight(tally: NightTally, run: Run): void {
  tally.requests += run.requests;
  tally.sync_cpu_ms += run.syncCpuMs;
  tally.cpu_per_request_ms = round2(tally.sync_cpu_ms / Math.max(1, tally.requests));
}

interface WorldFigures {
  world: string;
  load_before: number;
  load_after: number;
  requests: number;
  rows: number;
  wall_ms: number;
  sync_cpu_ms: number;
  cpu_per_request_ms: number;
  rows_per_request: number;
  /** The sync process's peak resident set (VmHWM). */
  peak_rss_mb: number;
  by_thread: Record<string, number>;
  floor: Floor & {
    per_request_ms: number;
    sync_over_floor: number;
    durable_per_request_ms: number;
    sync_over_durable_floor: number;
  };
  /** The nights after the backfill: their requests, rows and CPU summed, CPU ÷ requests, and each night's. */
  nights: NightTally & {
    count: number;
    rows: number;
    each_ms: number[];
    /** The nights after the first LOOKBACK_DAYS: their lookback starts after the backfill's last day. */
    settled: NightTally;
  };
}

interface Backfilled {
  figures: WorldFigures;
  /** The `n`-th night on the backfill's warehouse: the server's clock a day on, then a sync process. */
  night(n: number): Promise<Run>;
  close(): void;
}

/** A world's backfill; its server and warehouse stay for the nights. */
async function backfill(world: string): Promise<Backfilled> {
  const [projects, prompts, days] = world.split('x') as [string, string, string];
  const server = await startServeChild(
    ['--seed', '5', '--today', TODAY, '--demo', '--projects', projects, '--prompts', prompts].concat([
      '--history-days',
      days,
      '--rate-window-ms',
      String(WINDOW_MS),
    ]),
  );
  const dir = mkdtempSync(join(tmpdir(), 'vwh-cpu-'));
  const close = () => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const loadBefore = load();
  try {
    const job = { teamId: 'agency', baseUrl: server.url, apiKey: server.apiKey };
    const input = { db: join(dir, 'w.duckdb'), job, today: TODAY, windowMs: WINDOW_MS, serverPid: server.pid };
    const run = await syncChild({ ...input, floorSampleEvery: FLOOR_SAMPLE_EVERY });
    const floor = run.floor as Floor;
    const figures: WorldFigures = {
      world,
      load_before: loadBefore,
      load_after: load(),
      requests: run.requests,
      rows: run.rows,
      wall_ms: run.wallMs,
      sync_cpu_ms: run.syncCpuMs,
      cpu_per_request_ms: round2(run.syncCpuMs / run.requests),
      rows_per_request: Math.round(run.rows / run.requests),
      peak_rss_mb: run.peakRssMb,
      by_thread: run.syncCpuByThread,
      floor: {
        ...floor,
        per_request_ms: round2(floor.floor_ms / run.requests),
        sync_over_floor: round2(run.syncCpuMs / floor.floor_ms),
        durable_per_request_ms: round2(floor.durable_floor_ms / run.requests),
        sync_over_durable_floor: round2(run.syncCpuMs / floor.durable_floor_ms),
      },
      nights: {
        count: 0,
        requests: 0,
        rows: 0,
        sync_cpu_ms: 0,
        cpu_per_request_ms: 0,
        each_ms: [],
        settled: { requests: 0, sync_cpu_ms: 0, cpu_per_request_ms: 0 },
      },
    };
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), ...figures })}\n`);
    const night = async (n: number) => {
      const moved = await fetch(`${server.url}/_reference/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance_days: 1 }),
      });
      if (!moved.ok) throw new Error(`the reference's clock did not move: HTTP ${moved.status}`);
      return syncChild({ ...input, today: addDays(TODAY, n) });
    };
    return { figures, night, close };
  } catch (error) {
    close();
    throw error;
  }
}

const backfills: Backfilled[] = [];
try {
  for (const world of worlds) backfills.push(await backfill(world));
  // The nights alternate between the worlds (night 1 of each, then night 2 …): the host's speed drifts by up to 1.5 ×
  // within a run, and alternating gives each world the same share of it.
  for (let n = 1; n <= NIGHTS; n++) {
    for (const { figures, night } of backfills) {
      const run = await night(n);
      const nights = figures.nights;
      nights.count++;
      nights.rows += run.rows;
      nights.each_ms.push(round2(run.syncCpuMs / Math.max(1, run.requests)));
      tallyNight(nights, run);
      if (n > LOOKBACK_DAYS) tallyNight(nights.settled, run);
      process.stdout.write(`${JSON.stringify({ world: figures.world, night: n, nights })}\n`);
    }
  }
} finally {
  for (const b of backfills) b.close();
}
const results = backfills.map((b) => b.figures);
const first = results[0] as WorldFigures;
const last = results.at(-1) as WorldFigures;
const growth = round2(last.cpu_per_request_ms / first.cpu_per_request_ms);
const nightGrowth = round2(last.nights.cpu_per_request_ms / first.nights.cpu_per_request_ms);
const settledGrowth = round2(last.nights.settled.cpu_per_request_ms / first.nights.settled.cpu_per_request_ms);
const flatness = flatnessOf(first, last);
process.stdout.write(
  `${JSON.stringify({ growth: `${last.world} / ${first.world}`, ratio: growth, night_ratio: nightGrowth, settled_night_ratio: settledGrowth, flatness })}\n`,
);

/**
 * What the floor allows of the growth with history. Both worlds fitted to a cost a request plus a cost a row
 * (CPU per request = a + b × rows per request), for the sync and for its floor. More history only adds rows to a
 * request (a chats request carries up to 31 days of a prompt's answers), and each added row costs at least the floor's
 * b: the flattest a sync with the first world's CPU could be is (first + b_floor × added rows) ÷ first. And the floor
 * itself grows by its own ratio: a sync at its floor is that steep.
 *
 * Two floors: the write in one transaction (DuckDB's writer at its best, which no resumable sync can be), and the
 * durable one, in the fewest transactions the sync's durability bound allows (bench/sync-floor.ts). The target
 * (`FLAT_TARGET`) is judged against the durable one: if even a sync adding nothing to that floor's added rows would be
 * steeper than the target, the target is beyond the floor, and the sync meets it when it reaches at least
 * `FLOOR_SHARE` of what the floor allows (the flattest ÷ the sync's ratio).
 */
function flatnessOf(a: WorldFigures, b: WorldFigures) {
  const dRows = b.rows_per_request - a.rows_per_request;
  if (dRows <= 0) return undefined;
  const perRowFit = (x: number, y: number) => {
    const perRow = (y - x) / dRows;
    return { per_request_ms: round2(x - perRow * a.rows_per_request), per_row_us: round2(perRow * 1000) };
  };
  const flattest = (x: number, y: number) => (a.cpu_per_request_ms + (y - x)) / a.cpu_per_request_ms;
  const allowed = flattest(a.floor.per_request_ms, b.floor.per_request_ms);
  const durable = flattest(a.floor.durable_per_request_ms, b.floor.durable_per_request_ms);
  return {
    sync: perRowFit(a.cpu_per_request_ms, b.cpu_per_request_ms),
    floor: perRowFit(a.floor.per_request_ms, b.floor.per_request_ms),
    floor_ratio: round2(b.floor.per_request_ms / a.floor.per_request_ms),
    /** The flattest ratio a sync costing what this one costs at the first world could have (rows at the floor's cost). */
    flattest_at_this_first_world: round2(allowed),
    /** Of the growth the floor forces (flattest - 1), how much this sync has (ratio - 1): 1 is the floor's own. */
    growth_over_floor_growth: round2((growth - 1) / (allowed - 1)),
    durable: {
      floor: perRowFit(a.floor.durable_per_request_ms, b.floor.durable_per_request_ms),
      floor_ratio: round2(b.floor.durable_per_request_ms / a.floor.durable_per_request_ms),
      flattest_at_this_first_world: round2(durable),
      growth_over_floor_growth: round2((growth - 1) / (durable - 1)),
      /** The target is beyond this floor: a sync adding nothing to the floor's added rows would be steeper. */
      target_beyond_floor: durable > FLAT_TARGET,
      /** The flattest ÷ the sync's ratio: the share of what the floor allows that the sync reaches. */
      share_of_floor_reached: round2(durable / growth),
    },
  };
}
const flatMet =
  growth <= FLAT_TARGET ||
  (flatness?.durable.target_beyond_floor === true && flatness.durable.share_of_floor_reached >= FLOOR_SHARE);
if (!profileDir) {
  const file = writeResult({
    name: 'sync-cpu',
    description:
      `CPU (user + sys) of one backfill's sync process ÷ its requests, per world (${worlds.join(', ')}), one world after ` +
      `the other, each against a reference server of its own (seed 5, today ${TODAY}, rate window ${WINDOW_MS} ms), then ` +
      `${NIGHTS} nights on each world's warehouse, alternating between the worlds (the server's clock a day on each; a ` +
      `sync process each; their CPU ÷ their requests, all of them and those after the first ${LOOKBACK_DAYS}, whose lookback starts after the backfill); the floor's parts the least of ${FLOOR_REPEATS} runs; ` +
      `DuckDB threads: ${process.env.VWH_BENCH_THREADS ?? 'the default'}. \`node dist/bench/sync-cpu.js ${worlds.join(' ')}\`.`,
    ratios: {
      [`cpu_per_request_${last.world}_over_${first.world}`]: growth,
      [`night_cpu_per_request_${last.world}_over_${first.world}`]: nightGrowth,
      [`settled_night_cpu_per_request_${last.world}_over_${first.world}`]: settledGrowth,
      ...(flatness
        ? {
            [`floor_per_request_${last.world}_over_${first.world}`]: flatness.floor_ratio,
            [`flattest_allowed_by_floor_${last.world}_over_${first.world}`]: flatness.flattest_at_this_first_world,
            [`durable_floor_per_request_${last.world}_over_${first.world}`]: flatness.durable.floor_ratio,
            [`flattest_allowed_by_durable_floor_${last.world}_over_${first.world}`]:
              flatness.durable.flattest_at_this_first_world,
            share_of_durable_floor_flatness_reached: flatness.durable.share_of_floor_reached,
          }
        : {}),
    },
    figures: Object.fromEntries(
      results.flatMap((r) => [
        [`cpu_per_request_ms_${r.world}`, r.cpu_per_request_ms],
        [`floor_per_request_ms_${r.world}`, r.floor.per_request_ms],
        [`sync_over_floor_${r.world}`, r.floor.sync_over_floor],
        [`durable_floor_per_request_ms_${r.world}`, r.floor.durable_per_request_ms],
        [`peak_rss_mb_${r.world}`, r.peak_rss_mb],
        [`night_cpu_per_request_ms_${r.world}`, r.nights.cpu_per_request_ms],
        [`settled_night_cpu_per_request_ms_${r.world}`, r.nights.settled.cpu_per_request_ms],
      ]),
    ),
    targets: {
      cpu_per_request: {
        target: '<= 6 ms at 10x50x365',
        met: last.world === '10x50x365' && last.cpu_per_request_ms <= 6,
      },
      flat_with_history: {
        target: `365 days <= ${FLAT_TARGET} x 30 days, or, where the durable floor allows no flatter, at least ${FLOOR_SHARE} of what it allows`,
        met: flatMet,
      },
      night_flat_with_history: { target: 'a night after 365 days <= 1.2 x one after 30 days', met: nightGrowth <= 1.2 },
    },
    details: { worlds: results, flatness },
  });
  process.stdout.write(`wrote ${file}\n`);
}
