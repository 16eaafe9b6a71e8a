/**
 * The real dbt-like-models project on a synced year of history: first (full) build, the build after one synced
 * night, a build with nothing new, and --full-refresh, each `vwh models build` in a process of its own (so its peak
 * RSS is the build's), with DuckDB's memory limit at its default.
 *
 * The world: `VWH_BENCH_WORLD=seed,projects,prompts,historyDays` (default 5,2,10,365: a fifth of the answers per day
 * of the agency's world, synced in about a minute) on API day `VWH_BENCH_TODAY` (default 2026-11-20). The agency's
 * scale is `VWH_BENCH_WORLD=5,10,50,365` (~490 k answers). The product's own sync fills it from a reference server on
 * a scaled rate window; that takes about 25 minutes at the agency's scale, so `VWH_BENCH_WAREHOUSE=<file>` keeps the
 * synced world there (synced into the file when it does not exist yet, reused as it is when it does) and every run
 * works on a copy. The night is synced from a reference server of the same world. `VWH_BENCH_FULL_REFRESH=0` leaves
 * out the `--full-refresh` build (a second full build: about a third of the run at the agency's scale).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDays } from '../src/core/days.js';
import { silentLogger } from '../src/core/log.js';
import { silentProgress } from '../src/extract/progress.js';
import { syncTeam } from '../src/extract/team-sync.js';
import { control, type ReferenceServer, startReferenceServer } from '../src/reference/index.js';
import { Database } from '../src/warehouse/duckdb.js';
import { DEFAULT_MEMORY_LIMIT } from '../src/warehouse/resources.js';
import { Warehouse } from '../src/warehouse/warehouse.js';
import { type BenchResult, writeResult } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = here.includes(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');
const MODELS_DIR = join(ROOT, 'dbt-like-models');
const RUNNER = join(ROOT, 'dist', 'src', 'models', 'runner.js');
const PROJECT = join(ROOT, 'dist', 'src', 'models', 'project.js');
const DUCKDB = join(ROOT, 'dist', 'src', 'warehouse', 'duckdb.js');
const CLOCK = join(ROOT, 'dist', 'src', 'core', 'clock.js');
const LOG = join(ROOT, 'dist', 'src', 'core', 'log.js');

const WINDOW_MS = 50;
const TODAY = process.env.VWH_BENCH_TODAY ?? '2026-11-20';
const [SEED, PROJECTS, PROMPTS, HISTORY] = (process.env.VWH_BENCH_WORLD ?? '5,2,10,365').split(',').map(Number) as [
  number,
  number,
  number,
  number,
];
const THREADS = 2;

interface BuildRun {
  ms: number;
  maxRssKb: number;
  statuses: Record<string, number>;
  reused: number;
  models: number;
  /** The slowest nodes (models, audits included, and singular tests), `id ms message`: where the time goes. */
  slowest: string[];
}

/**
 * One `models build` in a child process: load the project, open the warehouse with the default memory limit,
 * build with audits. Time covers loading and building; the RSS is the child's peak.
 */
function build(db: string, day: string, fullRefresh = false): BuildRun {
  const script = `
    const { runProject } = await import(${JSON.stringify(RUNNER)});
    const { loadProject } = await import(${JSON.stringify(PROJECT)});
    const { Database } = await import(${JSON.stringify(DUCKDB)});
    const { ManualClock } = await import(${JSON.stringify(CLOCK)});
    const { silentLogger } = await import(${JSON.stringify(LOG)});
    const t0 = performance.now();
    const project = await loadProject(${JSON.stringify(MODELS_DIR)});
    const db = await Database.open(${JSON.stringify(db)}, { memory_limit: ${JSON.stringify(DEFAULT_MEMORY_LIMIT)}, threads: '${THREADS}' });
    const r = await runProject(db, project, { command: 'build', threads: ${THREADS}, fullRefresh: ${fullRefresh},
      clock: new ManualClock(Date.parse('${addDays(day, 1)}T01:00:00Z')), logger: silentLogger });
    db.close();
    const ms = performance.now() - t0;
    const statuses = {};
    for (const x of r.results) statuses[x.status] = (statuses[x.status] ?? 0) + 1;
    const models = r.results.filter((x) => x.type === 'model');
    const reused = models.filter((x) => (x.message ?? '').startsWith('up to date: no input')).length;
    const slowest = [...r.results].sort((a, b) => b.durationMs - a.durationMs).slice(0, 6)
      .map((x) => x.id + ' ' + Math.round(x.durationMs) + ' ms' + (x.message ? ' (' + x.message.slice(0, 60) + ')' : ''));
    const failing = r.results.filter((x) => x.status !== 'success').map((x) => x.id + ': ' + x.status + ' ' + (x.message ?? ''));
    process.stdout.write(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, statuses, reused, models: models.length, slowest, failing }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`models build failed: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as BuildRun & { failing: string[] };
  if (result.failing.length) {
    throw new Error(
      `models build ended with ${JSON.stringify(result.statuses)} (every audit must pass): ${result.failing.join('; ')}`,
    );
  }
  return result;
}

async function syncInto(server: ReferenceServer, dbPath: string, today: string): Promise<void> {
  const warehouse = await Warehouse.open(dbPath);
  try {
    const result = await syncTeam({
      warehouse,
      teamId: 'bench',
      baseUrl: server.url,
      apiKey: server.demoApiKey ?? '',
      settings: {
        today,
        lookbackDays: 3,
        chunkDays: 31,
        windowDays: 30,
        topDomains: 3,
        maxSourcePages: 5,
        rotationDays: 1,
      },
      concurrency: 8,
      rate: { windowMs: WINDOW_MS },
      backoff: { minMs: 5, maxMs: 50 },
      logger: silentLogger,
      progress: silentProgress,
    });
    if (result.status !== 'succeeded') throw new Error(`the bench world's sync of ${today} ended ${result.status}`);
  } finally {
    warehouse.close();
  }
}

export async function main(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-bench-models-real-'));
  const server = await startReferenceServer({
    port: 0,
    today: TODAY,
    demo: true,
    rateWindowMs: WINDOW_MS,
    seed: SEED,
    projects: PROJECTS,
    prompts: PROMPTS,
    historyDays: HISTORY,
  });
  try {
    const db = join(dir, 'warehouse.duckdb');
    const given = process.env.VWH_BENCH_WAREHOUSE;
    const loadAtStart = loadavg()[0] ?? 0;
    const syncStart = performance.now();
    const reused = given !== undefined && existsSync(given);
    if (given && !reused) await syncInto(server, resolve(given), TODAY);
    if (given) copyFileSync(resolve(given), db);
    else await syncInto(server, db, TODAY);
    const syncMs = performance.now() - syncStart;
    const chats = await countChats(db);

    const first = build(db, TODAY);
    let fullRefresh: BuildRun | undefined;
    if (process.env.VWH_BENCH_FULL_REFRESH !== '0') {
      const refresh = join(dir, 'refresh.duckdb');
      copyFileSync(db, refresh);
      fullRefresh = build(refresh, TODAY, true);
      rmSync(refresh, { force: true });
    }

    control.advanceClock(server.state, { days: 1 });
    const nextDay = addDays(TODAY, 1);
    await syncInto(server, db, nextDay);
    const night = build(db, nextDay);
    const noop = build(db, nextDay);

    const full = first.ms;
    const nightRatio = night.ms / full;
    const noopRatio = noop.ms / full;
    const peakKb = Math.max(first.maxRssKb, fullRefresh?.maxRssKb ?? 0, night.maxRssKb, noop.maxRssKb);
    const result: BenchResult = {
      name: 'models-real',
      description:
        `The real dbt-like-models (${first.models} models, their audits and singular tests) on ` +
        `a ${PROJECTS} × ${PROMPTS} × ${HISTORY}-day world (seed ${SEED}, ${chats} answers) synced by vwh sync` +
        (reused ? ` (kept in ${given} by an earlier run)` : '') +
        `, each build a child process (project load + build), memory_limit ${DEFAULT_MEMORY_LIMIT}, ${THREADS} threads: ` +
        `first build, ${fullRefresh ? '--full-refresh of a copy, ' : ''}then one synced night (lookback included) and its build, then a build with ` +
        `nothing new. ${cpus().length} CPU(s), ${cpus()[0]?.model ?? ''}, shared with other work.`,
      ratios: { night_over_full: round(nightRatio), noop_over_full: round(noopRatio) },
      figures: {
        load_average_at_start: loadAtStart.toFixed(2),
        load_average_at_end: (loadavg()[0] ?? 0).toFixed(2),
        chats,
        sync_ms: reused ? 'reused' : round(syncMs),
        first_build_ms: round(first.ms),
        full_refresh_ms: fullRefresh ? round(fullRefresh.ms) : 'not run',
        night_build_ms: round(night.ms),
        noop_build_ms: round(noop.ms),
        night_models_reused: night.reused,
        noop_models_reused: noop.reused,
        models: first.models,
        peak_rss_mb: round(peakKb / 1024),
        first_rss_mb: round(first.maxRssKb / 1024),
        night_rss_mb: round(night.maxRssKb / 1024),
        first_slowest: first.slowest.join('; '),
        night_slowest: night.slowest.join('; '),
        noop_slowest: noop.slowest.join('; '),
      },
      targets: {
        night_over_full: { target: '<= 0.10', met: nightRatio <= 0.1 },
        noop_over_full: { target: '<= 0.05', met: noopRatio <= 0.05 },
        peak_rss: { target: '<= 2 GB', met: peakKb <= 2 * 1024 * 1024 },
      },
    };
    writeResult(result);
    return result;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function countChats(path: string): Promise<number> {
  const db = await Database.open(path);
  try {
    return Number(await db.session.scalar('SELECT count(*) FROM raw.chats'));
  } finally {
    db.close();
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
