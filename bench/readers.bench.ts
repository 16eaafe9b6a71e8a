/**
 * The readers' speed (issue 28, item 3): the seven named reports, the HTML report's queries and typical dashboard
 * queries (bench/readers-queries.ts) timed on the published copy (the DuckDB file BI tools open) and on the Parquet
 * lake (DuckDB's read_parquet with Hive partitioning), cold and warm, at each size of `VWH_BENCH_READERS`
 * (default `1x=5,10,50,365;10x=5,100,50,365`: label=seed,projects,prompts,days).
 *
 * Each size is prepared once into `VWH_BENCH_READERS_DIR/<label>/` (default: a temp folder, removed at the end; give
 * a folder to keep the prepared worlds between runs): raw.* landed from the simulated world (bench/land-world.ts, the
 * sync's row mapping and loader without HTTP), `vwh models build`, `vwh export parquet` of the marts and
 * staging.projects (the reports name each project), and the publish (`publishWarehouse`, the run's publish stage).
 * A folder holding `prepared.json` is reused as it is; one holding only `warehouse.duckdb` is built, exported and
 * published from it (raw.* synced by hand, say). Then one timing process per source (bench/readers-time.ts)
 * and, per report, `vwh report NAME --project P` on the published copy as a process of its own.
 *
 * "Cold": the first run of the query on a fresh DuckDB instance (nothing in its buffer pool or caches), the OS page
 * cache as it is (the files were just written or read, so mostly in it: a cold disk would add its reads).
 * "Warm": the next runs on the same connection.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quoteIdent, quoteLiteral } from '../src/core/sql.js';
import { publishWarehouse } from '../src/ops/publish.js';
import { Database } from '../src/warehouse/duckdb.js';
import { type BenchResult, writeResult } from './lib.js';
import type { Question } from './readers-queries.js';
import { type QueryTimes, SAMPLES, type SourceTimes } from './readers-time.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = here.includes(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');
const VWH = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
const LAND = join(ROOT, 'dist', 'bench', 'land-world.js');
const TIMER = join(ROOT, 'dist', 'bench', 'readers-time.js');

/** The issue's targets, for the one-project questions at the largest size. */
const TARGET_MS = { published: 200, lake: 500 } as const;
/** How many projects the one-project questions cycle through (spread over the sorted project ids). */
const QUESTION_PROJECTS = 10;

interface Size {
  label: string;
  seed: number;
  projects: number;
  prompts: number;
  days: number;
  /** `label=from*times`: the size `from`'s built warehouse with its marts replicated `times` times (replicate()). */
  replicates?: { from: string; times: number };
}

function sizes(): Size[] {
  const parsed = (process.env.VWH_BENCH_READERS ?? '1x=5,10,50,365;10x=5,100,50,365').split(';').map((spec): Size => {
    const [label, world] = spec.split('=') as [string, string];
    const copies = /^([^*]+)\*(\d+)$/.exec(world);
    if (copies) {
      const [, from, times] = copies as unknown as [string, string, string];
      return { label, seed: 0, projects: 0, prompts: 0, days: 0, replicates: { from, times: Number(times) } };
    }
    const [seed, projects, prompts, days] = world.split(',').map(Number) as [number, number, number, number];
    return { label, seed, projects, prompts, days };
  });
  for (const size of parsed) {
    const from = parsed.find((s) => s.label === size.replicates?.from);
    if (size.replicates && !from) throw new Error(`VWH_BENCH_READERS: ${size.label} replicates an unknown size`);
    if (from) Object.assign(size, { seed: from.seed, projects: from.projects * (size.replicates?.times ?? 1) });
    if (from) Object.assign(size, { prompts: from.prompts, days: from.days });
  }
  return parsed;
}

interface Prepared {
  world: Size;
  answers: number;
  land_ms: number | string;
  build_ms: number | string;
  lake_ms: number;
  publish_ms: number;
  published_bytes: number;
  lake_bytes: number;
  lake_files: number;
}

function run(args: string[], what: string): number {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (child.status !== 0) throw new Error(`${what} failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
  return Math.round(performance.now() - start);
}

async function scalar(db: string, sql: string): Promise<unknown> {
  const handle = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    return await handle.session.scalar(sql);
  } finally {
    handle.close();
  }
}

function folderBytes(dir: string): { bytes: number; files: number } {
  const out = spawnSync('find', [dir, '-name', '*.parquet', '-printf', '%s\\n'], { encoding: 'utf8' });
  const sizes = out.stdout.split('\n').filter(Boolean).map(Number);
  return { bytes: sizes.reduce((a, b) => a + b, 0), files: sizes.length };
}

/**
 * A stand-in for a larger world when none can be landed in time: a copy of the built warehouse `source` whose marts
 * hold each row `times` times, under `times` project ids (the first the original, the others derived from it), and
 * raw.projects a project per id (named `<name> #k`). The rows are inserted in the order the models build writes them
 * (by day, the projects mixed within a day), so DuckDB's zone maps prune no better than in a built warehouse. Every
 * other table is copied as it is (so raw.* and the staging views stay the source's size). Returns the ms it took.
 */
export async function replicate(source: string, db: string, times: number): Promise<number> {
  const start = performance.now();
  rmSync(db, { force: true });
  const handle = await Database.open(db);
  try {
    const s = handle.session;
    const self = String(await s.scalar('select current_database()'));
    await s.run(`ATTACH ${quoteLiteral(source)} AS src (READ_ONLY)`);
    await s.run(`COPY FROM DATABASE src TO ${quoteIdent(self)} (SCHEMA)`);
    const uuid = (h: string) =>
      `substr(${h}, 1, 8) || '-' || substr(${h}, 9, 4) || '-' || substr(${h}, 13, 4) || '-' || substr(${h}, 17, 4) || '-' || substr(${h}, 21, 12)`;
    await s.run(
      `CREATE TEMP TABLE pmap AS SELECT id AS old, k, CASE WHEN k = 0 THEN id ELSE ${uuid("md5(id || '/' || k)")} END AS new
       FROM (SELECT DISTINCT id FROM src.raw.projects) CROSS JOIN range(${times}) AS r(k)`,
    );
    const tables = await s.all<{ schema_name: string; table_name: string; project: boolean; day: boolean }>(
      `SELECT schema_name, table_name,
              bool_or(column_name = 'project_id') AS project, bool_or(column_name = 'date') AS day
       FROM duckdb_columns() WHERE database_name = 'src'
         AND (schema_name, table_name) IN (SELECT (schema_name, table_name) FROM duckdb_tables() WHERE database_name = 'src')
       GROUP BY ALL`,
    );
    for (const t of tables) {
      const name = `${quoteIdent(t.schema_name)}.${quoteIdent(t.table_name)}`;
      const into = `INSERT INTO ${quoteIdent(self)}.${name} BY NAME`;
      if (t.schema_name === 'marts' && t.project) {
        await s.run(
          `${into} SELECT t.* REPLACE (m.new AS project_id) FROM src.${name} t JOIN pmap m ON m.old = t.project_id
           ORDER BY ${t.day ? 't.date, ' : ''}hash(m.new, t.rowid)`,
        );
      } else if (name === '"raw"."projects"') {
        await s.run(
          `${into} SELECT t.* REPLACE (m.new AS id, CASE WHEN m.k = 0 THEN t.name ELSE t.name || ' #' || m.k END AS name)
           FROM src.${name} t JOIN pmap m ON m.old = t.id`,
        );
      } else {
        await s.run(`${into} SELECT * FROM src.${name}`);
      }
    }
    await s.run('CHECKPOINT');
  } finally {
    handle.close();
  }
  return Math.round(performance.now() - start);
}

/** Lands, builds, exports and publishes a size into `dir` (or reads what an earlier run prepared there). */
async function prepare(dir: string, size: Size): Promise<Prepared> {
  const done = join(dir, 'prepared.json');
  if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as Prepared;
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'warehouse.duckdb');
  const world = `${size.seed},${size.projects},${size.prompts},${size.days}`;
  // a warehouse already there (raw.* synced or landed by hand) is taken as it is
  let land_ms: number | string = 'given';
  let build_ms: number | string = 'replicated';
  if (size.replicates) {
    land_ms = await replicate(join(dirname(dir), size.replicates.from, 'warehouse.duckdb'), db, size.replicates.times);
  } else if (!existsSync(db)) {
    if (!existsSync(LAND))
      throw new Error(`${LAND} is missing: the readers bench lands its worlds with bench/land-world.ts`);
    land_ms = run([LAND, '--world', world, '--out', db], `landing ${world}`);
  }
  if (!size.replicates)
    build_ms = run([VWH, 'models', 'build', '--db', db, '--log-format', 'json'], 'vwh models build');
  const marts = String(
    await scalar(db, "select string_agg('marts.' || table_name, ' ') from duckdb_tables() where schema_name = 'marts'"),
  ).split(' ');
  const lake = join(dir, 'lake');
  const lake_ms = run(
    [VWH, 'export', 'parquet', '--db', db, '--out', lake, '--staging', '--tables', ...marts, 'staging.projects'],
    'vwh export parquet',
  );
  const start = performance.now();
  const published = await publishWarehouse(db, join(dir, 'published', 'warehouse.duckdb'));
  const publish_ms = Math.round(performance.now() - start);
  const { bytes, files } = folderBytes(lake);
  const prepared: Prepared = {
    world: size,
    answers: Number(await scalar(published.path, 'select count(*) from raw.chats')),
    land_ms,
    build_ms,
    lake_ms,
    publish_ms,
    published_bytes: published.bytes,
    lake_bytes: bytes,
    lake_files: files,
  };
  writeFileSync(done, JSON.stringify(prepared, null, 2));
  return prepared;
}

/** The questions: QUESTION_PROJECTS projects spread over the sorted ids, each with its newest day; the account's. */
async function questions(published: string): Promise<{ projects: Question[]; account: Question }> {
  const handle = await Database.open(published, { access_mode: 'READ_ONLY' });
  try {
    const rows = await handle.session.all<{ project: string; last_day: string }>(
      `select project_id as project, strftime(max(date), '%Y-%m-%d') as last_day
       from marts.brand_visibility_daily group by project_id order by project_id`,
    );
    const step = Math.max(1, rows.length / QUESTION_PROJECTS);
    const picked: Question[] = [];
    for (let i = 0; i < rows.length && picked.length < QUESTION_PROJECTS; i += step) {
      const row = rows[Math.floor(i)] as { project: string; last_day: string };
      picked.push({ project: row.project, lastDay: row.last_day });
    }
    const lastDay =
      rows
        .map((r) => r.last_day)
        .sort()
        .at(-1) ?? '';
    return { projects: picked, account: { project: null, lastDay } };
  } finally {
    handle.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(0, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[rank] ?? Number.NaN) * 10) / 10;
}

interface QuerySummary {
  query: string;
  kind: string;
  scope: string;
  rows: number;
  open_p50_ms: number;
  cold_p50_ms: number;
  cold_p95_ms: number;
  warm_p50_ms: number;
  warm_p95_ms: number;
  cold_cpu_p50_ms: number;
  cold_cpu_p95_ms: number;
  warm_cpu_p50_ms: number;
  warm_cpu_p95_ms: number;
  samples: string;
}

function summarize(q: QueryTimes): QuerySummary {
  return {
    query: q.name,
    kind: q.kind,
    scope: q.scope,
    rows: q.rows,
    open_p50_ms: percentile(q.open_ms, 50),
    cold_p50_ms: percentile(q.cold_ms, 50),
    cold_p95_ms: percentile(q.cold_ms, 95),
    warm_p50_ms: percentile(q.warm_ms, 50),
    warm_p95_ms: percentile(q.warm_ms, 95),
    cold_cpu_p50_ms: percentile(q.cold_cpu_ms, 50),
    cold_cpu_p95_ms: percentile(q.cold_cpu_ms, 95),
    warm_cpu_p50_ms: percentile(q.warm_cpu_ms, 50),
    warm_cpu_p95_ms: percentile(q.warm_cpu_ms, 95),
    samples: `${q.cold_ms.length} cold, ${q.warm_ms.length} warm`,
  };
}

function timeSource(source: 'published' | 'lake', path: string, questionsFile: string): SourceTimes {
  const child = spawnSync(process.execPath, [TIMER, source, path, questionsFile], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`timing ${source} failed (exit ${child.status})`);
  return JSON.parse(child.stdout) as SourceTimes;
}

/** `vwh report NAME --project P --out FILE.csv` on the published copy, a process each: the user's whole command. */
function cliReports(published: string, project: string, dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const names = spawnSync(process.execPath, [VWH, 'report', '--list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => /^\s*([a-z][a-z0-9_]*)\b/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== 'html');
  for (const name of names) {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      times.push(
        run([VWH, 'report', name, '--db', published, '--project', project, '--out', join(dir, `${name}.csv`)], name),
      );
    }
    out[name] = percentile(times, 50);
  }
  return out;
}

export async function main(): Promise<BenchResult> {
  const given = process.env.VWH_BENCH_READERS_DIR;
  const work = given ?? mkdtempSync(join(tmpdir(), 'vwh-bench-readers-'));
  const loadAtStart = loadavg()[0] ?? 0;
  const figures: Record<string, number | string> = { load_average_at_start: loadAtStart.toFixed(2) };
  const targets: NonNullable<BenchResult['targets']> = {};
  const details: Record<string, unknown> = {};
  const all = sizes();
  try {
    for (const size of all) {
      const dir = join(work, size.label);
      const prepared = await prepare(dir, size);
      const published = join(dir, 'published', 'warehouse.duckdb');
      const lake = join(dir, 'lake');
      const asked = await questions(published);
      const questionsFile = join(dir, 'questions.json');
      writeFileSync(questionsFile, JSON.stringify(asked));
      process.stderr.write(`readers: ${size.label}: ${prepared.answers} answers, timing the published copy\n`);
      const pub = timeSource('published', published, questionsFile);
      process.stderr.write(`readers: ${size.label}: timing the lake\n`);
      const lk = timeSource('lake', lake, questionsFile);
      const cli = cliReports(published, asked.projects[0]?.project ?? '', dir);
      const tables = { published: pub.queries.map(summarize), lake: lk.queries.map(summarize) };
      details[size.label] = {
        prepared,
        load_average: {
          published: [pub.load_average_at_start, pub.load_average_at_end],
          lake: [lk.load_average_at_start, lk.load_average_at_end],
        },
        timing_cpu_ms: { published: pub.cpu_ms, lake: lk.cpu_ms },
        vwh_report_cli_p50_ms: cli,
        ...tables,
      };
      figures[`${size.label}_answers`] = prepared.answers;
      figures[`${size.label}_published_mb`] = Math.round(prepared.published_bytes / 1e6);
      figures[`${size.label}_lake_mb`] = Math.round(prepared.lake_bytes / 1e6);
      for (const source of ['published', 'lake'] as const) {
        const one = tables[source].filter((t) => t.scope === 'project');
        for (const phase of ['cold', 'warm'] as const) {
          const worst = one.reduce((a, b) => (b[`${phase}_p95_ms`] > a[`${phase}_p95_ms`] ? b : a));
          figures[`${size.label}_${source}_${phase}_worst_one_project_p95_ms`] =
            `${worst[`${phase}_p95_ms`]} (${worst.query})`;
          const busiest = one.reduce((a, b) => (b[`${phase}_cpu_p95_ms`] > a[`${phase}_cpu_p95_ms`] ? b : a));
          figures[`${size.label}_${source}_${phase}_worst_one_project_cpu_p95_ms`] =
            `${busiest[`${phase}_cpu_p95_ms`]} (${busiest.query})`;
          if (size === all.at(-1)) {
            targets[`${size.label}_${source}_${phase}_one_project_p95`] = {
              target: `<= ${TARGET_MS[source]} ms for every one-project question`,
              met: one.every((t) => t[`${phase}_p95_ms`] <= TARGET_MS[source]),
            };
          }
        }
      }
      writeFileSync(join(dir, 'readers.json'), JSON.stringify(details[size.label], null, 2));
    }
  } finally {
    if (!given) rmSync(work, { recursive: true, force: true });
  }
  figures.load_average_at_end = (loadavg()[0] ?? 0).toFixed(2);
  const result: BenchResult = {
    name: 'readers',
    description:
      `The readers' speed at ${all.map((s) => `${s.label} (${s.projects} × ${s.prompts} × ${s.days}, seed ${s.seed})`).join(' and ')}: ` +
      'the seven reports (one project, and every project), the HTML report queries and six dashboard queries ' +
      '(bench/readers-queries.ts) on the published copy and on the Parquet lake (an in-memory DuckDB with views over ' +
      "read_parquet(…, hive_partitioning = true)). Cold: the query's first run on a fresh DuckDB instance (open " +
      `timed apart), the OS page cache as it is; warm: the next ${SAMPLES.warm} runs on that connection. One-project ` +
      `questions: ${SAMPLES.project} cold samples over ${QUESTION_PROJECTS} projects spread over the ids; account-wide ` +
      `ones ${SAMPLES.account}. ${sizes()
        .filter((s) => s.replicates)
        .map(
          (s) =>
            `${s.label}: the ${s.replicates?.from} warehouse's marts replicated ${s.replicates?.times} times under new project ids (replicate()). `,
        )
        .join('')}${cpus().length} CPU(s), ` +
      `${cpus()[0]?.model ?? ''}, shared with other work. Per-query tables in details.`,
    ratios: {},
    figures,
    targets,
    details,
  };
  writeResult(result);
  return result;
}
