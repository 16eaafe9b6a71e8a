/**
 * Full build vs incremental build of the same models after one new day, on a synthetic warehouse of ~11 M raw rows
 * over 365 days. The DAG: a time-range staging model (as the real staging.chats), two incremental_by_time_range marts and a table on top of one of them,
 * with audits (`vwh models build`: models, then their audits; time-range audits cover the days just written).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ManualClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/log.js';
import { loadProject } from '../src/models/project.js';
import { type RunResults, runProject } from '../src/models/runner.js';
import { Database } from '../src/warehouse/duckdb.js';
import { type BenchResult, timed, writeResult } from './lib.js';

const DAYS = 365;
const ROWS_PER_DAY = Number(process.env.VWH_BENCH_ROWS_PER_DAY ?? 30_000);
const FIRST_DAY = Date.UTC(2025, 0, 1);
const ROUNDS = 3;
const THREADS = 2;

const MODELS: Record<string, string> = {
  // Cut by day like the real project's staging.chats: a plain view over the facts would be read by the marts as a
  // table not cut by day (freshness.ts' DimensionKeys), whose every new day rebuilds them in full.
  'staging/stg_chats.sql': `/* @model
kind: incremental_by_time_range
time_column: day
*/
select id as chat_id, day, project_id, prompt_id, brand, mentioned, position, sentiment
from raw.chats
where day between @start_date and @end_date`,
  'marts/daily_brand.sql': `/* @model
kind: incremental_by_time_range
time_column: day
audits:
  - not_null: [day, project_id, brand]
  - unique: [day, project_id, brand]
  - expression: {sql: "mentions <= chats", name: mentions_le_chats}
*/
select day, project_id, brand, count(*) as chats, count(*) filter (where mentioned) as mentions,
       avg(position) filter (where mentioned) as avg_position, avg(sentiment) as avg_sentiment
from staging.stg_chats
where day between @start_date and @end_date
group by all`,
  'marts/daily_prompt.sql': `/* @model
kind: incremental_by_time_range
time_column: day
audits:
  - unique: [day, prompt_id]
*/
select day, prompt_id, count(*) as chats, count(distinct brand) filter (where mentioned) as brands_mentioned
from staging.stg_chats
where day between @start_date and @end_date
group by all`,
  'marts/brand_summary.sql': `/* @model
kind: table
audits:
  - number_of_rows: {min: 1}
  - expression: "visibility between 0 and 1"
*/
select brand, sum(mentions) as mentions, sum(chats) as chats, sum(mentions) / sum(chats) as visibility
from marts.daily_brand
group by brand`,
};

/** A week per INSERT, unsorted: rows land clustered by day as a daily sync leaves them, without sorting 11 M rows. */
async function insertDays(db: Database, fromDay: number, days: number): Promise<void> {
  for (let from = fromDay; from < fromDay + days; from += 7) {
    await insertChunk(db, from, Math.min(7, fromDay + days - from));
  }
}

async function insertChunk(db: Database, fromDay: number, days: number): Promise<void> {
  await db.session.run(`INSERT INTO raw.chats
    SELECT d * ${ROWS_PER_DAY} + i AS id,
           CAST(DATE '2025-01-01' + CAST(d AS INTEGER) AS DATE) AS day,
           'p' || (i % 20) AS project_id,
           'q' || (i % 500) AS prompt_id,
           'brand_' || ((i * 7 + d * 3) % 12) AS brand,
           (i * 11 + d) % 3 = 0 AS mentioned,
           1 + (i * 13 + d * 5) % 10 AS position,
           ((i * 17 + d * 7) % 200) / 100.0 - 1 AS sentiment
    FROM range(${fromDay}, ${fromDay + days}) AS t(d), range(${ROWS_PER_DAY}) AS u(i)`);
}

export async function main(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-bench-models-'));
  try {
    const modelsDir = join(dir, 'models');
    for (const [path, sql] of Object.entries(MODELS)) {
      mkdirSync(dirname(join(modelsDir, path)), { recursive: true });
      writeFileSync(join(modelsDir, path), sql);
    }
    const db = await Database.open(join(dir, 'warehouse.duckdb'));
    await db.session.run('CREATE SCHEMA raw');
    await db.session.run(`CREATE TABLE raw.chats (id BIGINT, day DATE, project_id VARCHAR, prompt_id VARCHAR, brand VARCHAR,
      mentioned BOOLEAN, position INTEGER, sentiment DOUBLE)`);
    const seed = await timed(() => insertDays(db, 0, DAYS));
    const rawRows = Number(await db.session.scalar('SELECT count(*) FROM raw.chats'));
    const project = await loadProject(modelsDir);
    // The clock sits on the day after the last one, so "yesterday" is the last day of data.
    const clock = new ManualClock(FIRST_DAY + DAYS * 86_400_000 + 3_600_000);
    const build = (fullRefresh = false) =>
      runProject(db, project, { command: 'build', clock, logger: silentLogger, fullRefresh, threads: THREADS });
    const check = (r: RunResults) => {
      const bad = r.results.filter((x) => x.status !== 'success');
      if (bad.length) throw new Error(`bench build failed: ${JSON.stringify(bad)}`);
      return r;
    };

    const first = await timed(async () => check(await build()));
    // Each figure is the median of three runs: one new day each for the incremental builds.
    const incrementals: { ms: number; value: RunResults }[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      await insertDays(db, DAYS + k, 1);
      await clock.advance(86_400_000);
      incrementals.push(await timed(async () => check(await build())));
    }
    const incremental = median(incrementals);
    const incrementalDays = incremental.value.results.find((r) => r.id === 'marts.daily_brand')?.intervals ?? '';
    const noop = await timed(async () => check(await build()));
    const fulls: { ms: number; value: RunResults }[] = [];
    for (let k = 0; k < ROUNDS; k++) fulls.push(await timed(async () => check(await build(true))));
    const full = median(fulls);
    db.close();

    const ratio = incremental.ms / full.ms;
    const result: BenchResult = {
      name: 'models',
      description:
        `vwh models build: ${rawRows.toLocaleString('en')} raw rows over ${DAYS} days, then ${ROUNDS} new days; DAG = time-range staging, two ` +
        'incremental_by_time_range marts, one table, 6 audits. Full build (--full-refresh: every day rebuilt under a ' +
        'temporary name, audited, swapped) vs the incremental build after one new day (one interval, audits on that day), ' +
        `medians of ${ROUNDS}, same warehouse file, ${THREADS} threads. ${cpus().length} CPU(s), ${cpus()[0]?.model ?? ''}, shared with other work.`,
      ratios: { incremental_over_full: round(ratio), noop_over_full: round(noop.ms / full.ms) },
      figures: {
        raw_rows: rawRows,
        seed_ms: round(seed.ms),
        first_build_ms: round(first.ms),
        full_refresh_build_ms: round(full.ms),
        full_refresh_runs_ms: fulls.map((f) => round(f.ms)).join(' '),
        incremental_build_ms: round(incremental.ms),
        incremental_runs_ms: incrementals.map((f) => round(f.ms)).join(' '),
        noop_build_ms: round(noop.ms),
        incremental_days: incrementalDays,
      },
      targets: { incremental_over_full: { target: '< 0.1 (a small fraction)', met: ratio < 0.1 } },
    };
    writeResult(result);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median<T extends { ms: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)] as T;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
