/**
 * The build's horizon is the warehouse's own data, the last complete API day the sync recorded, never the machine's
 * clock (issue 24, item 1): a machine whose clock runs days ahead of the API used to mark the days up to its own
 * yesterday built while they were empty, and their answers, landed later, never reached staging.chats or the marts.
 * A small world that is not the demo one (seed 23, 2 projects x 4 prompts x 21 days), the reference server on port
 * 0, the production sync and the shipped models; the machine's clock is a ManualClock days ahead of or behind the
 * API's day.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { exitCodeFor, type RunOptions, type RunResults, runProject } from '../../src/models/runner.js';
import type { Project } from '../../src/models/types.js';
import { modelsStage } from '../../src/ops/stages/models.js';
import { control, type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { stageContext } from '../ops/support.js';
import { MODELS_DIR, syncInto } from './support.js';

const API_DAY = '2026-11-20';
const COMPLETENESS = 'test.answered_days_are_modelled';
const KEPT = 'test.answered_days_keep_their_answers';
/** The machine's clock, `days` days after (or before) the API's day `day`, at 03:00 UTC. */
const machineClock = (day: string, days: number) => new ManualClock(Date.parse(`${addDays(day, days)}T03:00:00Z`));

let dir: string;
let server: ReferenceServer;
let apiKey: string;
let project: Project;
/** A warehouse synced once on API_DAY, never built: each test copies it (the first one then syncs 2 days on). */
let synced: string;

beforeAll(async () => {
  dir = tempDir('vwh-horizon-').dir;
  server = await startReferenceServer({
    port: 0,
    today: API_DAY,
    demo: true,
    rateWindowMs: 200,
    seed: 23,
    projects: 2,
    prompts: 4,
    historyDays: 21,
  });
  apiKey = server.demoApiKey ?? '';
  project = await loadProject(MODELS_DIR);
  synced = join(dir, 'synced.duckdb');
  await syncInto(server.url, apiKey, synced, API_DAY);
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function copyOfSynced(name: string): string {
  const path = join(dir, name);
  copyFileSync(synced, path);
  return path;
}

/** Runs `fn` on a copy of the synced warehouse, closed afterwards. */
async function onCopy(name: string, fn: (db: Database) => Promise<void>): Promise<void> {
  const db = await Database.open(copyOfSynced(name));
  try {
    await fn(db);
  } finally {
    db.close();
  }
}

async function build(db: Database, clock: ManualClock, more: Partial<RunOptions> = {}): Promise<RunResults> {
  return runProject(db, project, { command: 'build', threads: 2, clock, logger: silentLogger, ...more });
}

const failing = (r: RunResults) =>
  r.results.filter((x) => x.status === 'error' || x.status === 'fail').map((x) => `${x.id}: ${x.message}`);

async function count(db: Database, sql: string): Promise<number> {
  return Number(await db.session.scalar(sql));
}

/** Answers of a day in raw.chats (deduplicated) and in staging.chats. */
async function answersOn(db: Database, day: string): Promise<{ raw: number; staged: number }> {
  return {
    raw: await count(db, `select count(distinct id) from raw.chats where chat_date = date '${day}'`),
    staged: await count(db, `select count(*) from staging.chats where chat_date = date '${day}'`),
  };
}

const lastDay = (db: Database, relation: string, column = 'date') =>
  db.session.scalar<string>(`select strftime(max(${column}), '%Y-%m-%d') from ${relation}`);

describe('the machine clock ahead of the API by several days', () => {
  it('builds to the last complete API day, and the next days reach staging and the marts once they land', async () => {
    const path = copyOfSynced('ahead.duckdb');
    let db = await Database.open(path);
    try {
      // The clock is 5 days ahead: the old horizon was its yesterday, API_DAY + 4.
      const first = await build(db, machineClock(API_DAY, 5));
      expect(failing(first)).toEqual([]);
      expect(first.horizon).toMatchObject({ day: addDays(API_DAY, -1), end: addDays(API_DAY, -1), source: 'sync' });
      expect(
        await count(db, `select count(*) from ops.model_intervals where day > date '${addDays(API_DAY, -1)}'`),
      ).toBe(0);
      expect(await lastDay(db, 'marts.brand_visibility_trend')).toBe(addDays(API_DAY, -1));
    } finally {
      db.close();
    }

    // Two API days later, `vwh run --today API_DAY+2` on the same machine (now 7 days ahead of the first sync).
    control.advanceClock(server.state, { days: 2 });
    const today = addDays(API_DAY, 2);
    await syncInto(server.url, apiKey, path, today);
    db = await Database.open(path);
    try {
      const night = await build(db, machineClock(API_DAY, 7), { end: addDays(today, -1) });
      expect(failing(night)).toEqual([]);
      expect(night.horizon.end).toBe(addDays(today, -1));
      // The figure: raw.chats had the day's answers and staging.chats none.
      const day = addDays(API_DAY, 1);
      const { raw, staged } = await answersOn(db, day);
      expect(raw).toBeGreaterThan(0);
      expect(staged).toBe(raw);
      // The day before it was built with its on-time answers only: its late ones are in too.
      const before = await answersOn(db, API_DAY);
      expect(before.staged).toBe(before.raw);
      for (const mart of [
        'marts.brand_visibility_daily',
        'marts.share_of_voice_daily',
        'marts.brand_visibility_trend',
      ]) {
        expect(await lastDay(db, mart), mart).toBe(day);
      }
      expect(night.results.find((r) => r.id === COMPLETENESS)?.status).toBe('success');
      expect(
        await count(db, `select count(*) from marts.brand_visibility_trend where responses = 0 and date > '${day}'`),
      ).toBe(0);
    } finally {
      db.close();
    }
  }, 240_000);

  it('forgets the days an older build marked built past the horizon, with their rows', async () => {
    await onCopy('upgraded.duckdb', async (db) => {
      const horizon = addDays(API_DAY, -1);
      expect(failing(await build(db, machineClock(API_DAY, 4)))).toEqual([]);
      // What the previous version left: the days up to the machine's yesterday marked built, the trend's rows
      // for them with no answers.
      for (const model of ['staging.chats', 'marts.brand_visibility_trend']) {
        await db.session.run(`insert into ops.model_intervals
          select '${model}', day::date, now(), 'old' from range(date '${API_DAY}', date '${addDays(API_DAY, 3)}', interval 1 day) as t(day)`);
      }
      await db.session.run(`insert into marts.brand_visibility_trend by name
        select * replace (date '${API_DAY}' as date, 0 as responses, 0 as mentions)
        from marts.brand_visibility_trend where date = date '${horizon}'`);
      // Its builds ended on another day than this one's, so no model's recorded inputs match.
      // A night's sync lands other rows too; here only deletes changed, which the recorded inputs do not see.
      await db.session.run('update ops.model_state set input_key = null');
      const next = await build(db, machineClock(API_DAY, 4));
      expect(failing(next)).toEqual([]);
      expect(next.results.find((r) => r.id === 'marts.brand_visibility_trend')?.message).toContain(
        `3 day(s) after the horizon ${horizon} forgotten`,
      );
      expect(await count(db, `select count(*) from ops.model_intervals where day > date '${horizon}'`)).toBe(0);
      expect(await lastDay(db, 'marts.brand_visibility_trend')).toBe(horizon);
    });
  }, 240_000);
});

describe('the machine clock behind the API by several days', () => {
  it('still builds to the last complete API day; a day that gains answers after it was built is re-processed', async () => {
    await onCopy('behind.duckdb', async (db) => {
      // One prompt's answers of a day well before the lookback are not landed yet (a unit the sync retries later).
      const late = addDays(API_DAY, -9);
      const prompt = `(select min(prompt_id) from raw.chats)`;
      const ids = `select id from held_chats`;
      await db.session.run(
        `create table held_chats as select * from raw.chats where chat_date = date '${late}' and prompt_id = ${prompt}`,
      );
      for (const t of ['chat_mentions', 'chat_references']) {
        await db.session.run(`create table held_${t} as select * from raw.${t} where chat_id in (${ids})`);
        await db.session.run(`delete from raw.${t} where chat_id in (${ids})`);
      }
      await db.session.run(`delete from raw.chats where id in (${ids})`);
      const held = await count(db, 'select count(*) from held_chats');
      expect(held).toBeGreaterThan(0);

      // The clock is 6 days behind: the old horizon was API_DAY - 7, leaving the last six days out.
      const first = await build(db, machineClock(API_DAY, -6));
      // Only the API's own counts disagree with the answers held back (marts.api_reconciliation says so, as it should).
      expect(failing(first).map((f) => f.split(':')[0])).toEqual(['marts.api_reconciliation']);
      expect(first.horizon).toMatchObject({ end: addDays(API_DAY, -1), source: 'sync' });
      expect(await lastDay(db, 'marts.brand_visibility_daily')).toBe(addDays(API_DAY, -1));
      expect(await lastDay(db, 'staging.chats', 'chat_date')).toBe(addDays(API_DAY, -1));
      const before = await answersOn(db, late);
      expect(before.staged).toBe(before.raw);

      // The retried unit lands: its rows are stamped now, after the build.
      for (const t of ['chats', 'chat_mentions', 'chat_references']) {
        await db.session.run(
          `insert into raw.${t} by name select * replace (now()::timestamp as _extracted_at) from held_${t}`,
        );
      }
      const again = await build(db, machineClock(API_DAY, -6));
      expect(failing(again)).toEqual([]);
      const after = await answersOn(db, late);
      expect(after.raw).toBe(before.raw + held);
      expect(after.staged).toBe(after.raw);
      const intervals = again.results.find((r) => r.id === 'staging.chats')?.intervals ?? '';
      expect(intervals).toContain(late);
      const daily = await count(
        db,
        `select sum(responses) from marts.brand_visibility_daily where is_own_brand and provider = 'all' and date = '${late}'`,
      );
      expect(daily).toBe(after.raw);
    });
  }, 240_000);
});

describe("vwh run's models stage", () => {
  it('builds to the last complete API day, whatever the clock and a --today after the API day', async () => {
    const path = copyOfSynced('stage.duckdb');
    // `vwh run --today API_DAY+3` on a machine 4 days ahead: the sync brought its day back to the API's.
    const outcome = await modelsStage.run({
      ...stageContext(path),
      modelsDir: MODELS_DIR,
      today: addDays(API_DAY, 3),
      clock: machineClock(API_DAY, 4),
    });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.counts?.horizon).toBe(addDays(API_DAY, -1));
    const built = await Database.open(path, { access_mode: 'READ_ONLY' });
    try {
      expect(await lastDay(built, 'ops.model_intervals', 'day')).toBe(addDays(API_DAY, -1));
    } finally {
      built.close();
    }
  }, 240_000);
});

describe('the completeness audit', () => {
  it('fails at error severity when a day with answers is missing from staging.chats or a daily mart', async () => {
    await onCopy('incomplete.duckdb', async (db) => {
      const built = await build(db, machineClock(API_DAY, 0));
      expect(built.results.find((r) => r.id === COMPLETENESS)?.status).toBe('success');
      // What the run held: a day's answers in raw.chats, none in staging.chats or the daily mart.
      const day = addDays(API_DAY, -3);
      await db.session.run(`delete from staging.chats where chat_date = date '${day}'`);
      await db.session.run(`delete from marts.brand_visibility_daily where date = date '${day}'`);
      const tested = await runProject(db, project, {
        command: 'test',
        select: ['staging.chats'],
        clock: machineClock(API_DAY, 3),
        logger: silentLogger,
      });
      const audit = tested.results.find((r) => r.id === COMPLETENESS);
      expect(audit?.status).toBe('fail');
      expect(audit?.audits[0]?.severity).toBe('error');
      expect(audit?.message).toBe('2 failing row(s)');
      expect(exitCodeFor(tested)).toBe(2);

      // --end only lowers the horizon: a later one is brought back to it, and says so.
      const later = await runProject(db, project, {
        command: 'test',
        select: ['staging.chats'],
        end: addDays(API_DAY, 5),
        clock: machineClock(API_DAY, 9),
        logger: silentLogger,
      });
      expect(later.horizon.end).toBe(addDays(API_DAY, -1));
      expect(later.horizon.note).toContain(`--end ${addDays(API_DAY, 5)} is after the last complete day`);
    });
  }, 240_000);
});

describe('a day that lost its answers', () => {
  it('fails answered_days_keep_their_answers, which answered_days_are_modelled cannot see', async () => {
    await onCopy('lost.duckdb', async (db) => {
      const clock = machineClock(API_DAY, 1);
      const first = await build(db, clock);
      expect(failing(first)).toEqual([]);
      expect(first.results.find((r) => r.id === KEPT)?.status).toBe('success');
      // Night 2: a lookback day's answers of one project are gone (an API that answered an empty list for them).
      const day = addDays(API_DAY, -2);
      const projectId = await db.session.scalar<string>('select min(project_id) from raw.chats');
      const lost = `select id from raw.chats where chat_date = date '${day}' and project_id = '${projectId}'`;
      const answers = await count(db, `select count(*) from (${lost})`);
      expect(answers).toBeGreaterThan(0);
      for (const t of ['chat_mentions', 'chat_references'])
        await db.session.run(`delete from raw.${t} where chat_id in (${lost})`);
      await db.session.run(`delete from raw.chats where id in (${lost})`);
      // A night's sync lands other rows too; here only deletes changed, which the recorded inputs do not see.
      await db.session.run('update ops.model_state set input_key = null');

      const night = await build(db, clock);
      // The marts are rebuilt without the day, and every answer raw.chats holds is modelled.
      expect(night.results.find((r) => r.id === COMPLETENESS)?.status).toBe('success');
      const test = night.results.find((r) => r.id === KEPT);
      expect(test?.status).toBe('fail');
      expect(test?.audits[0]?.severity).toBe('error');
      expect(test?.message).toBe('1 failing row(s)');
      expect(exitCodeFor(night)).toBe(2);
      const [row] = await db.session.all<{ date: string; answers: number }>(
        `select strftime(date, '%Y-%m-%d') as date, answers from intermediate.int_answered_days
         where project_id = '${projectId}' and date = date '${day}'`,
      );
      expect(row).toEqual({ date: day, answers });
    });
  }, 240_000);
});
