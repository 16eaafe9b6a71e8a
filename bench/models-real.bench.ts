/**
 * Ten times the answers (issue 28): the real dbt-like-models and the Parquet lake on landed worlds of 1 ×, 3 × and
 * 10 × an agency's answers. Per size, each `vwh models build` in a process of its own (its peak RSS is the build's,
 * its CPU user + sys the build's), DuckDB's memory limit at its default:
 *
 * - the first build, its cost per answer (CPU and wall), then the lake: `vwh export parquet` of the marts (a fresh
 *   lake) against bare single-file `COPY`s of the same tables' rows in the same run;
 * - one night landed (the next API day, the lookback and the rotation as vwh sync makes them), its build, a build
 *   with nothing new, the lake's export of the night (the partitions that changed);
 * - warehouse, lake and published copy (`publishWarehouse`) size on disk per million answers.
 *
 * The worlds: `VWH_BENCH_SIZES` (default `1x=5,10,50,365;3x=5,30,50,365;10x=5,100,50,365`, label=seed,projects,
 * prompts,days). Each is landed by bench/land-world.ts (the sync's row mapping and loader, no HTTP) into
 * `VWH_BENCH_DIR/<label>.duckdb` (default a temp folder) unless that file exists (then copied as it is); a size
 * whose `VWH_BENCH_DIR/<label>.figures.json` an earlier run wrote is not measured again (`<label>_measured_at`).
 * With `VWH_BENCH_DIR`, the first phase (landing, first build, full lake) is kept in `<label>.built/` and
 * `<label>.first.json`: delete `<label>.figures.json` to measure the night again from it after a change to the night's
 * path. The warehouse after its night is left as `<label>.night.duckdb` (bench/readers.bench.ts prepares a world from
 * it: copy it to `VWH_BENCH_READERS_DIR/<label>/warehouse.duckdb`).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDays } from '../src/core/days.js';
import { createLogger, type Logger } from '../src/core/log.js';
import { exportParquetLake } from '../src/export/index.js';
import type { ScopeManifest } from '../src/export/lake/manifest.js';
import { publishWarehouse } from '../src/ops/publish.js';
import { Database } from '../src/warehouse/duckdb.js';
import { DEFAULT_MEMORY_LIMIT } from '../src/warehouse/resources.js';
import { BENCH_TODAY, landWorld, parseSizes } from './land-world.js';
import { type BenchResult, writeResult } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = here.includes(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');
const MODELS_DIR = join(ROOT, 'dbt-like-models');
const RUNNER = join(ROOT, 'dist', 'src', 'models', 'runner.js');
const PROJECT = join(ROOT, 'dist', 'src', 'models', 'project.js');
const DUCKDB = join(ROOT, 'dist', 'src', 'warehouse', 'duckdb.js');
const CLOCK = join(ROOT, 'dist', 'src', 'core', 'clock.js');
const LOG = join(ROOT, 'dist', 'src', 'core', 'log.js');

const TODAY = process.env.VWH_BENCH_TODAY ?? BENCH_TODAY;
const THREADS = 2;
/** DuckDB's memory limit of every build (`VWH_BENCH_MEMORY_LIMIT`, default vwh's own): what the builds must hold to. */
const MEMORY_LIMIT = process.env.VWH_BENCH_MEMORY_LIMIT ?? DEFAULT_MEMORY_LIMIT;

interface BuildRun {
  ms: number;
  /** The build process's CPU, user + sys (DuckDB's threads included). */
  cpuMs: number;
  maxRssKb: number;
  statuses: Record<string, number>;
  /** Models not built (no input changed since their last successful build). */
  reused: number;
  models: number;
  /** Singular tests not run (no input changed since they last passed), of `tests`. */
  testsReused: number;
  tests: number;
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
    const db = await Database.open(${JSON.stringify(db)}, { memory_limit: ${JSON.stringify(MEMORY_LIMIT)}, threads: '${THREADS}' });
    const r = await runProject(db, project, { command: 'build', threads: ${THREADS}, fullRefresh: ${fullRefresh},
      clock: new ManualClock(Date.parse('${addDays(day, 1)}T01:00:00Z')), logger: silentLogger });
    db.close();
    const ms = performance.now() - t0;
    const statuses = {};
    for (const x of r.results) statuses[x.status] = (statuses[x.status] ?? 0) + 1;
    const models = r.results.filter((x) => x.type === 'model');
    const reused = models.filter((x) => x.reused).length;
    const tests = r.results.filter((x) => x.type === 'test');
    const testsReused = tests.filter((x) => x.reused).length;
    const slowest = [...r.results].sort((a, b) => b.durationMs - a.durationMs).slice(0, 6)
      .map((x) => x.id + ' ' + Math.round(x.durationMs) + ' ms' + (x.message ? ' (' + x.message.slice(0, 60) + ')' : ''));
    const failing = r.results.filter((x) => x.status !== 'success').map((x) => x.id + ': ' + x.status + ' ' + (x.message ?? ''));
    const u = process.resourceUsage();
    process.stdout.write(JSON.stringify({ ms, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS, statuses, reused, models: models.length, testsReused, tests: tests.length, slowest, failing }));
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

type Size = ReturnType<typeof parseSizes>[number];

function sizes(): Size[] {
  return parseSizes(process.env.VWH_BENCH_SIZES ?? '1x=5,10,50,365;3x=5,30,50,365;10x=5,100,50,365');
}

function fileBytes(path: string): number {
  const out = spawnSync('du', ['-sb', path], { encoding: 'utf8' });
  return Number(out.stdout.split('\t')[0]);
}

/** CPU (user + sys) and wall of an in-process step: DuckDB's threads are the process's, so they count. */
async function measured<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, value };
}

/** Bare single-file zstd COPYs of every table the lake holds (the same rows): the floor of a full export. */
async function bareCopies(db: string, tables: string[], dir: string) {
  const handle = await Database.open(db, { access_mode: 'READ_ONLY', memory_limit: MEMORY_LIMIT });
  try {
    return await measured(async () => {
      for (const t of tables)
        await handle.session.run(`COPY ${t} TO '${join(dir, `${t}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`);
    });
  } finally {
    handle.close();
  }
}

async function lakeTables(db: string): Promise<string[]> {
  const handle = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    const rows = await handle.session.all<{ t: string }>(
      "select 'marts.' || table_name as t from duckdb_tables() where schema_name = 'marts' order by 1",
    );
    return rows.map((r) => r.t);
  } finally {
    handle.close();
  }
}

interface SizeFigures {
  answers: number;
  landed: string;
  first: BuildRun;
  night: BuildRun;
  noop: BuildRun;
  night_landing: { requests: number; rows: number; wall_ms: number };
  lake_full: { ms: number; cpu_ms: number; files: number; rows: number };
  bare_copy: { ms: number; cpu_ms: number };
  lake_night: { ms: number; cpu_ms: number; files: number; rows: number; tables?: string[] };
  warehouse_bytes: number;
  lake_bytes: number;
  published_bytes: number;
  load: string[];
  measured_at: string;
}

interface FirstFigures {
  answers: number;
  landed: string;
  first: BuildRun;
  lake_full: SizeFigures['lake_full'];
  bare_copy: SizeFigures['bare_copy'];
  load: string[];
}

/**
 * Lands the size, builds it for the first time and exports its full lake into `dir`. With `VWH_BENCH_DIR`, the state
 * after the first phase (the built warehouse and its lake, in `<label>.built/`, the figures in `<label>.first.json`)
 * is kept, and a later run starts from it: at 10 × the first phase takes most of an hour, and the night's figures
 * can then be measured again (delete `<label>.figures.json`) after a change to the night's path. With
 * `VWH_BENCH_REEXPORT` set, the kept first phase's full lake (and its bare COPYs) is exported again from its kept
 * build, for a change to the lake's layout (the first build's figures stay the kept ones).
 */
async function firstPhase(size: Size, dir: string, keep: string | undefined): Promise<FirstFigures> {
  const db = join(dir, 'warehouse.duckdb');
  const lake = join(dir, 'lake');
  const builtAt = keep ? join(keep, `${size.label}.built`) : undefined;
  const firstAt = keep ? join(keep, `${size.label}.first.json`) : undefined;
  if (builtAt && firstAt && existsSync(firstAt) && existsSync(join(builtAt, 'warehouse.duckdb'))) {
    process.stderr.write(`models-real: ${size.label}: the first phase as ${builtAt} kept it\n`);
    copyTree(builtAt, dir);
    let kept = JSON.parse(readFileSync(firstAt, 'utf8')) as FirstFigures;
    if (process.env.VWH_BENCH_REEXPORT) {
      // the lake's layout changed since the first phase was kept: its full export again, from the kept build
      rmSync(lake, { recursive: true, force: true });
      const again = await fullLake(db, dir, lake);
      kept = {
        ...kept,
        ...again,
        load: [
          ...kept.load,
          `full lake exported again from the kept build (VWH_BENCH_REEXPORT), load ${loadavg()[0]?.toFixed(2)}`,
        ],
      };
      rmSync(join(builtAt, 'lake'), { recursive: true, force: true });
      copyTree(lake, join(builtAt, 'lake'));
      writeFileSync(firstAt, JSON.stringify(kept, null, 2));
    }
    const stale = lakeWithoutStorageKeys(join(dir, 'lake'));
    if (stale) process.stderr.write(`models-real: ${size.label}: ${stale}\n`);
    return {
      ...kept,
      load: [
        ...kept.load,
        `night measured again from the kept first phase, load ${loadavg()[0]?.toFixed(2)}`,
        ...(stale ? [stale] : []),
      ],
    };
  }
  const load = [
    `start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ];
  const landedAt = keep ? join(keep, `${size.label}.duckdb`) : db;
  let landed = 'kept';
  if (!existsSync(landedAt)) {
    const land = await landWorld({ world: size, out: landedAt, today: TODAY });
    landed = `${land.wall_ms} ms, ${land.requests} requests`;
  }
  if (landedAt !== db) {
    copyFileSync(landedAt, db);
    if (existsSync(`${landedAt}.wal`)) copyFileSync(`${landedAt}.wal`, `${db}.wal`);
  }
  const answers = await countChats(db);
  process.stderr.write(`models-real: ${size.label}: ${answers} answers, first build\n`);
  const first = build(db, TODAY);
  load.push(`after first build ${loadavg()[0]?.toFixed(2)}`);

  const { lake_full, bare_copy } = await fullLake(db, dir, lake);
  load.push(`after full export ${loadavg()[0]?.toFixed(2)}`);
  const figures: FirstFigures = { answers, landed, first, lake_full, bare_copy, load };
  if (builtAt && firstAt) {
    rmSync(builtAt, { recursive: true, force: true });
    copyTree(dir, builtAt);
    writeFileSync(firstAt, JSON.stringify(figures, null, 2));
  }
  return figures;
}

/** The bare single-file COPYs of the marts, then the full lake export of the same warehouse (into `lake`). */
async function fullLake(db: string, dir: string, lake: string): Promise<Pick<FirstFigures, 'lake_full' | 'bare_copy'>> {
  const tables = await lakeTables(db);
  const bareDir = join(dir, 'bare');
  mkdirSync(bareDir);
  const bare = await bareCopies(db, tables, bareDir);
  rmSync(bareDir, { recursive: true, force: true });
  const full = await measured(() => exportParquetLake({ db, outDir: lake }));
  return {
    lake_full: { ms: full.ms, cpu_ms: full.cpuMs, files: full.value.files, rows: full.value.rows },
    bare_copy: { ms: bare.ms, cpu_ms: bare.cpuMs },
  };
}

/**
 * A kept lake whose manifests have no storage keys was written before them (docs/lake.md, "Incremental"): the
 * night's export reads every row once, and does not measure what a night costs. Says so, or undefined.
 */
function lakeWithoutStorageKeys(lake: string): string | undefined {
  const scopes = join(lake, '_manifests');
  if (!existsSync(scopes)) return undefined;
  for (const file of readdirSync(scopes)) {
    const manifest = JSON.parse(readFileSync(join(scopes, file), 'utf8')) as ScopeManifest;
    for (const table of Object.values(manifest.tables)) {
      if (table.partitions.some((p) => p.storage_key === undefined)) {
        return `the kept first phase's lake has no storage keys (written before them): its night export reads every row once; delete the kept first phase to measure a night`;
      }
    }
  }
  return undefined;
}

/** `cp -a from/. to/`: the warehouse (and its WAL, if any) and the lake folder. */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  const cp = spawnSync('cp', ['-a', `${from}/.`, to], { encoding: 'utf8' });
  if (cp.status !== 0) throw new Error(`cp -a ${from} ${to} failed: ${cp.stderr}`);
}

/**
 * What the export of the night did per table, from its log: the rows it read and hashed (`none`, `all`, or the months),
 * the partitions it rewrote, and the time of each step. A lake written by a version without storage keys (a first
 * phase kept from before them) is read in full once: then every table says `all`.
 */
function stagedTables(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({
    format: 'json',
    level: 'info',
    stream: {
      write(line: string) {
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.msg === 'export table staged') {
          lines.push(
            `${e.table} read ${e.hashed} rewrote ${e.rewritten}/${e.partitions} hash ${e.hash_ms} ms write ${e.write_ms} ms`,
          );
        }
        return true;
      },
    } as unknown as NodeJS.WritableStream,
  });
  return { log, lines };
}

async function runSize(size: Size, work: string, keep: string | undefined): Promise<SizeFigures> {
  const dir = join(work, size.label);
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'warehouse.duckdb');
  const lake = join(dir, 'lake');
  const { answers, landed, first, lake_full, bare_copy, load } = await firstPhase(size, dir, keep);

  process.stderr.write(`models-real: ${size.label}: a night\n`);
  const nightLanding = await landWorld({ world: size, out: db, today: TODAY, nights: 1 });
  const nextDay = addDays(TODAY, 1);
  const night = build(db, nextDay);
  const noop = build(db, nextDay);
  const staged = stagedTables();
  const nightLake = await measured(() => exportParquetLake({ db, outDir: lake, log: staged.log }));
  const published = await publishWarehouse(db, join(dir, 'published', 'warehouse.duckdb'));
  load.push(`end ${loadavg()[0]?.toFixed(2)}`);
  const figures: SizeFigures = {
    answers,
    landed,
    first,
    night,
    noop,
    night_landing: { requests: nightLanding.requests, rows: nightLanding.rows, wall_ms: nightLanding.wall_ms },
    lake_full,
    bare_copy,
    lake_night: {
      ms: nightLake.ms,
      cpu_ms: nightLake.cpuMs,
      files: nightLake.value.files,
      rows: nightLake.value.rows,
      tables: staged.lines,
    },
    warehouse_bytes: fileBytes(db),
    lake_bytes: fileBytes(lake),
    published_bytes: published.bytes,
    load,
    measured_at: new Date().toISOString(),
  };
  // the warehouse after its night, built: bench/readers.bench.ts takes it as a prepared world's warehouse.duckdb
  if (keep) renameSync(db, join(keep, `${size.label}.night.duckdb`));
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

export async function main(): Promise<BenchResult> {
  const work = mkdtempSync(join(tmpdir(), 'vwh-bench-models-real-'));
  const keep = process.env.VWH_BENCH_DIR;
  if (keep) mkdirSync(keep, { recursive: true });
  const loadAtStart = loadavg()[0] ?? 0;
  const all = sizes();
  const bySize: Record<string, SizeFigures> = {};
  try {
    for (const size of all) {
      // A size measured by an earlier run into VWH_BENCH_DIR is taken as it is (its time is in its figures): the
      // 10 × run takes hours on a shared machine, and the sizes need not be measured in one sitting.
      const kept = keep ? join(keep, `${size.label}.figures.json`) : undefined;
      if (kept && existsSync(kept)) {
        bySize[size.label] = JSON.parse(readFileSync(kept, 'utf8')) as SizeFigures;
        continue;
      }
      bySize[size.label] = await runSize(size, work, keep);
      if (kept) writeFileSync(kept, JSON.stringify(bySize[size.label], null, 2));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const figures: Record<string, number | string> = { load_average_at_start: loadAtStart.toFixed(2) };
  const ratios: Record<string, number> = {};
  const targets: NonNullable<BenchResult['targets']> = {};
  // the ratios' base: the smallest size (the sizes may be measured in any order)
  const baseSize = [...all].sort((a, b) => (bySize[a.label]?.answers ?? 0) - (bySize[b.label]?.answers ?? 0))[0];
  const base = baseSize ? bySize[baseSize.label] : undefined;
  const perAnswer = (f: SizeFigures, what: 'cpuMs' | 'ms') => (f.first[what] * 1000) / f.answers;
  for (const size of all) {
    const f = bySize[size.label] as SizeFigures;
    const l = size.label;
    const million = f.answers / 1e6;
    // The size's peak resident set over its three builds, in KiB (VmHWM's unit).
    const peakRssKb = Math.max(f.first.maxRssKb, f.night.maxRssKb, f.noop.maxRssKb);
    Object.assign(figures, {
      [`${l}_answers`]: f.answers,
      [`${l}_first_build_ms`]: round(f.first.ms),
      [`${l}_first_build_cpu_ms`]: round(f.first.cpuMs),
      [`${l}_first_build_cpu_us_per_answer`]: round(perAnswer(f, 'cpuMs')),
      [`${l}_first_build_wall_us_per_answer`]: round(perAnswer(f, 'ms')),
      [`${l}_night_build_ms`]: round(f.night.ms),
      [`${l}_noop_build_ms`]: round(f.noop.ms),
      [`${l}_noop_build_cpu_ms`]: round(f.noop.cpuMs),
      [`${l}_noop_reused`]: `${f.noop.reused}/${f.noop.models} models, ${f.noop.testsReused ?? '?'}/${f.noop.tests ?? '?'} tests`,
      // MiB (the figure was named `_peak_rss_mb` before 2026-11-26).
      [`${l}_peak_rss_mib`]: round(peakRssKb / 1024),
      [`${l}_lake_full_ms`]: round(f.lake_full.ms),
      [`${l}_bare_copy_ms`]: round(f.bare_copy.ms),
      [`${l}_lake_night_ms`]: round(f.lake_night.ms),
      [`${l}_lake_night_tables`]: (f.lake_night.tables ?? []).join('; '),
      [`${l}_lake_files`]: f.lake_full.files,
      [`${l}_warehouse_mb_per_million_answers`]: round(f.warehouse_bytes / 1e6 / million),
      [`${l}_lake_mb_per_million_answers`]: round(f.lake_bytes / 1e6 / million),
      [`${l}_published_mb_per_million_answers`]: round(f.published_bytes / 1e6 / million),
      [`${l}_first_slowest`]: f.first.slowest.join('; '),
      [`${l}_night_slowest`]: f.night.slowest.join('; '),
      [`${l}_load`]: f.load.join('; '),
      [`${l}_landed`]: f.landed,
      [`${l}_measured_at`]: f.measured_at ?? 'this run',
    });
    ratios[`${l}_night_over_first`] = round(f.night.ms / f.first.ms);
    ratios[`${l}_noop_over_first`] = round(f.noop.ms / f.first.ms);
    ratios[`${l}_lake_full_over_bare_copy`] = round(f.lake_full.ms / f.bare_copy.ms);
    ratios[`${l}_lake_full_over_bare_copy_cpu`] = round(f.lake_full.cpu_ms / f.bare_copy.cpu_ms);
    ratios[`${l}_lake_night_over_full`] = round(f.lake_night.ms / f.lake_full.ms);
    ratios[`${l}_lake_night_over_full_cpu`] = round(f.lake_night.cpu_ms / f.lake_full.cpu_ms);
    if (base) {
      ratios[`${l}_cpu_per_answer_over_${baseSize?.label}`] = round(perAnswer(f, 'cpuMs') / perAnswer(base, 'cpuMs'));
      ratios[`${l}_wall_per_answer_over_${baseSize?.label}`] = round(perAnswer(f, 'ms') / perAnswer(base, 'ms'));
    }
    // 2 GB read as DuckDB reads a memory size (10^9 bytes, 1,907 MiB): the stricter of the two readings.
    targets[`${l}_peak_rss`] = {
      target: '<= 2 GB (2,000,000,000 bytes)',
      met: peakRssKb * 1024 <= 2e9,
    };
    targets[`${l}_noop`] = { target: '<= 2 s', met: f.noop.ms <= 2000 };
  }
  // the targets' size: the largest
  const last = [...all].sort((a, b) => (bySize[a.label]?.answers ?? 0) - (bySize[b.label]?.answers ?? 0)).at(-1);
  if (last && base && all.length > 1) {
    const f = bySize[last.label] as SizeFigures;
    targets[`${last.label}_cpu_per_answer`] = {
      target: `<= 1.2 x ${baseSize?.label}'s`,
      met: perAnswer(f, 'cpuMs') <= 1.2 * perAnswer(base, 'cpuMs'),
    };
    targets[`${last.label}_night_over_first`] = { target: '<= 0.05', met: f.night.ms <= 0.05 * f.first.ms };
    targets[`${last.label}_lake_full_over_bare_copy`] = {
      target: '<= 1.5',
      met: f.lake_full.ms <= 1.5 * f.bare_copy.ms,
    };
    targets[`${last.label}_lake_night_over_full`] = { target: '<= 0.1', met: f.lake_night.ms <= 0.1 * f.lake_full.ms };
  }
  figures.load_average_at_end = (loadavg()[0] ?? 0).toFixed(2);
  const result: BenchResult = {
    name: 'models-real',
    description:
      `The real dbt-like-models (${base?.first.models ?? '?'} models, their audits and singular tests) and the Parquet ` +
      `lake of the marts at ${all.map((s) => `${s.label} (${s.projects} × ${s.prompts} × ${s.days}, seed ${s.seed})`).join(', ')}, ` +
      'each world landed by bench/land-world.ts (the sync without HTTP). Each build a child process (project load + ' +
      `build), memory_limit ${MEMORY_LIMIT}, ${THREADS} threads: first build (cost per answer in CPU user+sys ` +
      'and wall), then a full lake export against bare single-file COPYs of the same tables, then one landed night ' +
      '(lookback and rotation as vwh sync), its build, a build with nothing new and the lake export of the night. ' +
      `${cpus().length} CPU(s), ${cpus()[0]?.model ?? ''}, shared with other work (load in the figures).`,
    ratios,
    figures,
    targets,
    details: bySize,
  };
  writeResult(result);
  return result;
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
