/**
 * Full build vs incremental build of the same models after one new day, on a synthetic warehouse of ~6 M raw rows
 * over 365 days. The DAG: a staging view, two incremental_by_time_range marts and a table on top of one of them.
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
const ROWS_PER_DAY = Number(process.env.VWH_BENCH_ROWS_PER_DAY ?? 16_500);
const FIRST_DAY = Date.UTC(2025, 0, 1);
const ROUNDS = 3;

const MODELS: Record<string, string> = {
  'staging/stg_chats.sql': `select id as chat_id, day, project_id, prompt_id, brand, mentioned, position, sentiment
from raw.chats`,
  'marts/daily_brand.sql': `/* @model
kind: incremental_by_time_range
time_column: day
*/
select day, project_id, brand, count(*) as chats, count(*) filter (where mentioned) as mentions,
       avg(position) filter (where mentioned) as avg_position, avg(sentiment) as avg_sentiment
from staging.stg_chats
where day between @start_date and @end_date
group by all`,
  'marts/daily_prompt.sql': `/* @model
kind: incremental_by_time_range
time_column: day
*/
select day, prompt_id, count(*) as chats, count(distinct brand) filter (where mentioned) as brands_mentioned
from staging.stg_chats
where day between @start_date and @end_date
group by all`,
  'marts/brand_summary.sql': `/* @model
kind: table
*/
select brand, sum(mentions) as mentions, sum(chats) as chats, sum(mentions) / sum(chats) as visibility
from marts.daily_brand
group by brand`,
};

async function insertDays(db: Database, fromDay: number, days: number): Promise<void> {
  await db.run(`INSERT INTO raw.chats
    SELECT d * ${ROWS_PER_DAY} + i AS id,
           CAST(DATE '2025-01-01' + CAST(d AS INTEGER) AS DATE) AS day,
           'p' || (i % 20) AS project_id,
           'q' || (i % 500) AS prompt_id,
           'brand_' || (hash(i, d) % 12) AS brand,
           hash(i * 7, d) % 3 = 0 AS mentioned,
           1 + hash(i * 13, d) % 10 AS position,
           (hash(i * 17, d) % 200) / 100.0 - 1 AS sentiment
    FROM range(${fromDay}, ${fromDay + days}) AS t(d), range(${ROWS_PER_DAY}) AS u(i)
    ORDER BY day`);
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
    await db.run('CREATE SCHEMA raw');
    await db.run(`CREATE TABLE raw.chats (id BIGINT, day DATE, project_id VARCHAR, prompt_id VARCHAR, brand VARCHAR,
      mentioned BOOLEAN, position INTEGER, sentiment DOUBLE)`);
    const seed = await timed(() => insertDays(db, 0, DAYS));
    const rawRows = Number(await db.scalar('SELECT count(*) FROM raw.chats'));
    const project = await loadProject(modelsDir);
    // The clock sits on the day after the last one, so "yesterday" is the last day of data.
    const clock = new ManualClock(FIRST_DAY + DAYS * 86_400_000 + 3_600_000);
    const build = (fullRefresh = false) =>
      runProject(db, project, { command: 'run', clock, logger: silentLogger, fullRefresh, threads: 1 });
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
        `vwh models: ${rawRows.toLocaleString('en')} raw rows over ${DAYS} days, then ${ROUNDS} new days; DAG = staging view, two ` +
        'incremental_by_time_range marts, one table. Full build (--full-refresh, all days) vs the incremental ' +
        `build after one new day (medians of ${ROUNDS}), same warehouse file, one thread. ${cpus().length} CPU(s), ${cpus()[0]?.model ?? ''}.`,
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
