/**
 * The real dbt-like-models after one more synced day: the incremental build (the one a nightly run does) must leave
 * every mart, intermediate table and snapshot with exactly the rows a build from scratch of the same raw tables
 * gives, and a second build with nothing new must reuse every model.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunResults, runProject } from '../../src/models/runner.js';
import type { Project } from '../../src/models/types.js';
import { control } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { MODELS_DIR, type SyncedWorld, syncedWorld, WORLD_TODAY } from './support.js';

const NEXT_DAY = addDays(WORLD_TODAY, 1);
/** The day after `day`, 01:00 UTC (the build's horizon is the sync's, not this clock's). */
const clockAfter = (day: string) => new ManualClock(Date.parse(`${addDays(day, 1)}T01:00:00Z`));

let world: SyncedWorld;
let project: Project;
let nightly: Database;
let night: RunResults;

/** `only`: the models that must succeed (by default every node). */
async function build(db: Database, day: string, only?: string[]): Promise<RunResults> {
  const results = await runProject(db, project, {
    command: 'build',
    threads: 2,
    clock: clockAfter(day),
    logger: silentLogger,
  });
  const bad = results.results
    .filter((r) => r.status !== 'success' && (!only || only.includes(r.id)))
    .map((r) => `${r.id}: ${r.status} ${r.message}`);
  expect(bad).toEqual([]);
  return results;
}

beforeAll(async () => {
  world = await syncedWorld();
  project = await loadProject(MODELS_DIR);
  // The nightly warehouse: built on the first day, then synced one day on and built again.
  const nightlyPath = join(world.dir, 'nightly.duckdb');
  copyFileSync(world.dbPath, nightlyPath);
  const db = await Database.open(nightlyPath);
  await build(db, WORLD_TODAY);
  db.close();
  control.advanceClock(world.server.state, { days: 1 });
  await world.sync(nightlyPath, NEXT_DAY);
  // A prompt's charts refreshed on its rotation night (the sync re-fetches the days since its last refresh): its
  // points of 20 to 10 days back land again, stamped after the night's sync. The staging model must re-process
  // those days (restate_landed), or they keep the old stamp and differ from a build from scratch.
  const refreshed = await Database.open(nightlyPath);
  await refreshed.session.run(
    `update raw.prompt_metrics_daily
     set _extracted_at = (select max(_extracted_at) from raw.prompt_metrics_daily) + interval 1 second
     where prompt_id = (select min(prompt_id) from raw.prompt_metrics_daily)
       and date between date '${NEXT_DAY}' - 20 and date '${NEXT_DAY}' - 10`,
  );
  refreshed.close();
  // The same raw tables, built from scratch: copied before the nightly build, with no model or model state in it.
  const scratchPath = await buildFromScratch(nightlyPath, 'scratch.duckdb');
  nightly = await Database.open(nightlyPath);
  night = await build(nightly, NEXT_DAY);
  await nightly.session.run(`ATTACH '${scratchPath}' AS fresh (READ_ONLY)`);
}, 600_000);

/** A copy of the warehouse's raw tables (`path`, closed) under `name`, built from scratch through `day`. */
async function buildFromScratch(path: string, name: string, only?: string[], day = NEXT_DAY): Promise<string> {
  const scratchPath = join(world.dir, name);
  copyFileSync(path, scratchPath);
  const scratch = await Database.open(scratchPath);
  for (const schema of ['staging', 'intermediate', 'marts', 'snapshots']) {
    await scratch.session.run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
  for (const table of ['model_state', 'model_intervals', 'model_restated', 'model_runs']) {
    await scratch.session.run(`DROP TABLE IF EXISTS ops.${table}`);
  }
  await build(scratch, day, only);
  scratch.close();
  return scratchPath;
}

afterAll(async () => {
  nightly?.close();
  await world?.cleanup();
});

/**
 * Rows of `relation` in one warehouse and not in the other (as multisets), both ways. Floating-point columns are
 * compared to 9 decimals: a sum of doubles depends on the order rows are read in, which a table built day by day
 * and one built at once do not share.
 */
async function difference(relation: string, other = 'fresh', db = nightly): Promise<number> {
  const columns = (
    await db.session.all<{ name: string; type: string }>(
      `select column_name as name, data_type as type from duckdb_columns()
       where database_name = '${other}' and schema_name || '.' || table_name = '${relation}' order by column_index`,
    )
  )
    .map((c) => (/^(DOUBLE|FLOAT|REAL)$/.test(c.type) ? `round("${c.name}", 9)` : `"${c.name}"`))
    .join(', ');
  const n = await db.session.scalar<bigint>(
    `select count(*) from (
       (select ${columns} from ${relation} except all select ${columns} from ${other}.${relation})
       union all
       (select ${columns} from ${other}.${relation} except all select ${columns} from ${relation}))`,
  );
  return Number(n);
}

describe('a nightly incremental build', () => {
  it('rebuilds what the new day changed', () => {
    const rebuilt = night.results.filter((r) => r.type === 'model' && !r.message?.startsWith('up to date: no input'));
    expect(rebuilt.map((r) => r.id)).toContain('marts.brand_visibility_daily');
    // the prompt list is re-synced every night (new _extracted_at, new 7-day figures) but the answers read only its
    // text: staging.chats and the models cut by day below it, the daily marts included, process the new day and the
    // 3 lookback days, not the whole history
    const cutByDay = [
      'staging.chats',
      'intermediate.int_chats_by_provider',
      'intermediate.int_day_completeness',
      'marts.brand_visibility_daily',
      'marts.share_of_voice_daily',
      'marts.prompt_performance_daily',
      // not marts.source_domains_daily: the night's sync brings domains the catalogue did not have, so
      // int_chat_domains (and everything below it) is rebuilt in full, as it must be
    ];
    const messages = Object.fromEntries(cutByDay.map((id) => [id, night.results.find((r) => r.id === id)?.message]));
    expect(messages).toEqual(Object.fromEntries(cutByDay.map((id) => [id, '4 day(s)'])));
    // the API's charts: the 4 days, and the 11 days of the prompt whose charts were refreshed 10 to 20 days back
    for (const id of ['staging.prompt_metrics_daily', 'marts.api_reconciliation']) {
      expect(night.results.find((r) => r.id === id)?.message, id).toBe('15 day(s)');
    }
    expect(night.results.find((r) => r.id === 'intermediate.int_chat_domains')?.message).toMatch(
      /^full refresh: .*\(an input not cut by day changed\)$/,
    );
  });

  it('leaves every table with the rows of a build from scratch', async () => {
    const tables = await nightly.session.all<{ relation: string }>(
      `select schema_name || '.' || table_name as relation from duckdb_tables()
       where database_name = 'fresh' and schema_name in ('staging', 'intermediate', 'marts') order by 1`,
    );
    expect(tables.length).toBeGreaterThan(5);
    const differing: string[] = [];
    for (const { relation } of tables) {
      const n = await difference(relation);
      if (n > 0) differing.push(`${relation}: ${n} rows differ`);
    }
    expect(differing).toEqual([]);
  });

  it('reuses every model when nothing new arrived', async () => {
    const again = await build(nightly, NEXT_DAY);
    const rebuilt = again.results
      .filter((r) => r.type === 'model' && r.kind !== 'ephemeral' && !r.message?.startsWith('up to date: no input'))
      .map((r) => r.id);
    expect(rebuilt).toEqual([]);
  });
});

describe('a day rewritten in the middle of the history', () => {
  it('re-processes the trend days whose windows read it, and only then equals a build from scratch', async () => {
    // A third of one day's answers, 20 days back, gone from every raw answer table; a backfill of that day alone
    // (--start/--end) rewrites it in every time-range model, the trend's 56 days after it are left for the next build.
    const day = addDays(NEXT_DAY, -20);
    const gone = `select id from raw.chats where chat_date = DATE '${day}' and hash(id) % 3 = 0`;
    expect(Number(await nightly.session.scalar(`select count(*) from (${gone})`))).toBeGreaterThan(0);
    for (const table of ['chat_mentions', 'chat_references']) {
      await nightly.session.run(`delete from raw.${table} where chat_id in (${gone})`);
    }
    await nightly.session.run(`delete from raw.chats where id in (${gone})`);
    const trend = (r: RunResults) => r.results.find((x) => x.id === 'marts.brand_visibility_trend')?.intervals;
    // Only these must pass: the missing answers no longer add up to the API's own counts, which
    // marts.api_reconciliation's audits report, as they should.
    const ours = ['marts.brand_visibility_daily', 'marts.brand_visibility_trend', 'marts.action_impact'];
    const rebuild = async (range: { start?: string; end?: string } = {}) => {
      const r = await runProject(nightly, project, {
        command: 'build',
        threads: 2,
        clock: clockAfter(NEXT_DAY),
        logger: silentLogger,
        ...range,
      });
      expect(ours.map((id) => r.results.find((x) => x.id === id)?.status)).toEqual(ours.map(() => 'success'));
      return r;
    };
    const backfill = await rebuild({ start: day, end: day });
    expect(trend(backfill)).toBe(day);

    nightly.close();
    const again = await buildFromScratch(nightly.path, 'scratch-again.duckdb', ours);
    nightly = await Database.open(nightly.path);
    await nightly.session.run(`ATTACH '${again}' AS again (READ_ONLY)`);
    // the days after it still hold windows over the old day
    expect(await difference('marts.brand_visibility_trend', 'again')).toBeGreaterThan(0);
    // up to the horizon: the last complete API day of the night's sync (NEXT_DAY's answers are not all in)
    expect(trend(await rebuild())).toBe(`${addDays(day, 1)}..${WORLD_TODAY}`);
    for (const relation of ours) {
      expect(await difference(relation, 'again'), relation).toBe(0);
    }
  });
});

describe('a provider that pauses for two weeks and resumes', () => {
  it('leaves the trend with the rows of a build from scratch, gap days included', async () => {
    // One project's perplexity answers, and every answer of the other project, stop 15 days before the night and
    // resume on its last 3 days: the build of the night before sees series that ended, the night's build sees them
    // resume (their new days land within the sync's lookback).
    const path = join(world.dir, 'paused.duckdb');
    copyFileSync(world.dbPath, path);
    const db = await Database.open(path);
    const first = '(select min(project_id) from raw.chats)';
    const second = '(select max(project_id) from raw.chats)';
    const paused = `select id from raw.chats where chat_date > DATE '${WORLD_TODAY}' - 16
      and (platform = 'perplexity' and project_id = ${first} or project_id = ${second})`;
    const resumed = `${paused} and chat_date >= DATE '${WORLD_TODAY}' - 2`;
    const tables = ['chats', 'chat_mentions', 'chat_references'] as const;
    const idOf = (t: string) => (t === 'chats' ? 'id' : 'chat_id');
    for (const t of tables) {
      await db.session.run(`create table kept_${t} as select * from raw.${t} where ${idOf(t)} in (${resumed})`);
    }
    expect(Number(await db.session.scalar('select count(*) from kept_chats'))).toBeGreaterThan(0);
    for (const t of [...tables].reverse()) await db.session.run(`delete from raw.${t} where ${idOf(t)} in (${paused})`);
    // only the answers' models must pass: the API's own counts no longer agree with the answers (api_reconciliation)
    const ours = ['marts.brand_visibility_daily', 'marts.brand_visibility_trend'];
    // the build of the night before, then the night's, whose sync landed the new day and re-read the 3 days before it
    await build(db, addDays(WORLD_TODAY, -1), ours);
    for (const t of tables) {
      await db.session.run(
        `insert into raw.${t} select * replace (now()::timestamp as _extracted_at) from kept_${t}; drop table kept_${t}`,
      );
    }
    db.close();
    const scratch = await buildFromScratch(path, 'paused-scratch.duckdb', ours, WORLD_TODAY);
    const again = await Database.open(path);
    try {
      await build(again, WORLD_TODAY, ours);
      await again.session.run(`ATTACH '${scratch}' AS paused_fresh (READ_ONLY)`);
      const gap = (project: string, provider: string) =>
        again.session.scalar(`select count(*) from marts.brand_visibility_trend where provider = '${provider}'
          and project_id = ${project} and date = DATE '${WORLD_TODAY}' - 8 and responses = 0 and responses_28d > 0`);
      // the pauses' days are rows of the series (0 answers on the day, windows still holding the answers before it)
      expect(Number(await gap(first, 'perplexity'))).toBeGreaterThan(0);
      expect(Number(await gap(second, 'all'))).toBeGreaterThan(0);
      expect(await difference('marts.brand_visibility_trend', 'paused_fresh', again)).toBe(0);
    } finally {
      again.close();
    }
  });
});
