/**
 * A key at its real rate against the bench's scaled window (issue 58): the same backfill synced at the bench's 2.5 s
 * rate window and at 60 s (70 a minute, the spec's), one after the other in one run, each a sync process of its own
 * against a reference server of its own. Prints and writes (bench/results/sync-rate.json) each one's CPU (user + sys of
 * the sync process) ÷ its requests, and the real rate's ÷ the bench's.
 *
 *   node dist/bench/run.js sync-rate                    (about 4 minutes: 1 × 5 × 365, 164 requests, twice)
 *   node dist/bench/sync-rate.bench.js [WORLD] [--cpu-prof DIR]   (a profile of each sync process into DIR)
 *
 * `VWH_BENCH_RATE_WORLD` (`PROJECTSxPROMPTSxDAYS`, default 1x5x365) and `VWH_BENCH_RATE_REPEATS` (default 1: each
 * window once, in turn) size it. A world's wall at 60 s is about its requests ÷ 70 minutes: 1 × 5 × 365 holds 2 windows
 * and a part, each opened by a burst of 70 requests, then a wait for the window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchResult, round2, startServeChild, writeResult } from './lib.js';
import { runInChild } from './sync-scale-run.js';

const TODAY = '2026-11-20';
const BENCH_WINDOW_MS = 2500;
const REAL_WINDOW_MS = 60_000;
const TARGET = 1.2;

interface RateRun {
  window_ms: number;
  requests: number;
  rows: number;
  wall_ms: number;
  floor_ms: number;
  sync_cpu_ms: number;
  cpu_per_request_ms: number;
  by_thread: Record<string, number>;
  load: number;
}

/** One backfill of `world` at `windowMs`: a server and a sync process of their own. */
async function backfillAt(world: string, windowMs: number, nodeFlags: string[]): Promise<RateRun> {
  const [projects, prompts, days] = world.split('x') as [string, string, string];
  const server = await startServeChild([
    '--seed',
    '5',
    '--today',
    TODAY,
    '--demo',
    '--projects',
    projects,
    '--prompts',
    prompts,
    '--history-days',
    days,
    '--rate-window-ms',
    String(windowMs),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'vwh-rate-'));
  try {
    const job = { teamId: 'agency', baseUrl: server.url, apiKey: server.apiKey };
    const run = await runInChild(
      { db: join(dir, 'w.duckdb'), job, today: TODAY, windowMs, serverPid: server.pid },
      nodeFlags,
    );
    const figures: RateRun = {
      window_ms: windowMs,
      requests: run.requests,
      rows: run.rows,
      wall_ms: run.wallMs,
      floor_ms: run.floorMs,
      sync_cpu_ms: run.syncCpuMs,
      cpu_per_request_ms: round2(run.syncCpuMs / Math.max(1, run.requests)),
      by_thread: run.syncCpuByThread,
      load: Number(loadavg()[0]?.toFixed(2)),
    };
    process.stderr.write(`sync-rate: ${JSON.stringify(figures)}\n`);
    return figures;
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(args: string[] = []): Promise<BenchResult> {
  const world = args.find((a) => /^\d+x\d+x\d+$/.test(a)) ?? process.env.VWH_BENCH_RATE_WORLD ?? '1x5x365';
  const repeats = Number(process.env.VWH_BENCH_RATE_REPEATS ?? 1);
  const profAt = args.indexOf('--cpu-prof');
  const profileDir = profAt >= 0 ? args[profAt + 1] : undefined;
  const nodeFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
  const runs: RateRun[] = [];
  // In turn, the bench's window first: the host's speed drifts within a run, and alternating shares it out.
  for (let i = 0; i < repeats; i++) {
    for (const windowMs of [BENCH_WINDOW_MS, REAL_WINDOW_MS]) runs.push(await backfillAt(world, windowMs, nodeFlags));
  }
  const perRequest = (windowMs: number) => {
    const at = runs.filter((r) => r.window_ms === windowMs);
    const cpu = at.reduce((n, r) => n + r.sync_cpu_ms, 0);
    const requests = at.reduce((n, r) => n + r.requests, 0);
    return round2(cpu / Math.max(1, requests));
  };
  const bench = perRequest(BENCH_WINDOW_MS);
  const real = perRequest(REAL_WINDOW_MS);
  const ratio = round2(real / bench);
  const result: BenchResult = {
    name: 'sync-rate',
    description:
      `CPU (user + sys) of a backfill's sync process ÷ its requests, ${world} (seed 5, today ${TODAY}, the sync-scale ` +
      `bench's streams and settings), at a ${BENCH_WINDOW_MS} ms rate window (the bench's) and at ${REAL_WINDOW_MS} ms ` +
      `(70 a minute, the real rate), ${repeats} time(s) each in turn, each a sync process and a reference server of ` +
      `its own. \`node dist/bench/run.js sync-rate\`.`,
    ratios: { cpu_per_request_real_rate_over_bench_window: ratio },
    figures: {
      world,
      cpu_per_request_ms_bench_window: bench,
      cpu_per_request_ms_real_rate: real,
      requests: runs[0]?.requests ?? 0,
      wall_ms_bench_window: runs.find((r) => r.window_ms === BENCH_WINDOW_MS)?.wall_ms ?? 0,
      wall_ms_real_rate: runs.find((r) => r.window_ms === REAL_WINDOW_MS)?.wall_ms ?? 0,
    },
    targets: {
      real_rate_cpu_per_request: {
        target: `at a 60 s window <= ${TARGET} x the bench's window`,
        met: ratio <= TARGET,
      },
    },
    details: { runs },
  };
  if (!profileDir) writeResult(result);
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await main(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
