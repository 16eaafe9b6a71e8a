/**
 * Measurement changes across syncs: an alias added between two syncs is dated by the sync that first lists it
 * (snapshots.project_aliases_history keeps the day; raw.project_aliases holds only the newest sync's list), and
 * marts.share_of_voice_daily flags an incomplete day (never one past the horizon) and a tracked-set change on every
 * brand's rows of the project. A small world of its own (seed 31), synced on two days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { findReport, loadReports } from '../../src/export/reports/catalog.js';
import { runReport } from '../../src/export/reports/run.js';
import { loadProject } from '../../src/models/project.js';
import { runProject } from '../../src/models/runner.js';
import { control } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { MODELS_DIR, type SyncedWorld, syncWorld, WORLD_TODAY } from './support.js';

const NEXT_DAY = addDays(WORLD_TODAY, 1);
const ALIAS = 'Zyxwv Alias';

let world: SyncedWorld;
let db: Database;
let projectId = '';

async function build(day: string): Promise<void> {
  const database = await Database.open(world.dbPath);
  try {
    const result = await runProject(database, await loadProject(MODELS_DIR), {
      command: 'build',
      threads: 2,
      select: ['+marts.measurement_events', '+marts.share_of_voice_daily'],
      clock: new ManualClock(Date.parse(`${addDays(day, 1)}T01:00:00Z`)),
      logger: silentLogger,
    });
    const bad = result.results.filter((r) => r.status === 'error' || r.status === 'fail');
    expect(bad.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
  } finally {
    database.close();
  }
}

beforeAll(async () => {
  world = await syncWorld({ seed: 31, projects: 2, prompts: 4, historyDays: 45 });
  await build(WORLD_TODAY);
  const first = await Database.open(world.dbPath);
  projectId = String(await first.session.scalar('select min(project_id) from raw.project_aliases'));
  first.close();
  // An alias added after the first sync, through the API as a user would.
  const res = await fetch(`${world.server.url}/api/public/v1/projects/${projectId}/aliases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': world.apiKey },
    body: JSON.stringify({ alias: ALIAS, match_type: 'fuzzy' }),
  });
  expect(res.status).toBeLessThan(300);
  control.advanceClock(world.server.state, { days: 1 });
  await world.sync(world.dbPath, NEXT_DAY);
  await build(NEXT_DAY);
  db = await Database.open(world.dbPath);
}, 300_000);

afterAll(async () => {
  db?.close();
  await world?.cleanup();
});

describe('aliases in marts.measurement_events', () => {
  it('dates an alias added between two syncs by the sync that first lists it, and the first sync’s aliases not at all', async () => {
    const events = await db.session.all<{ project_id: string; date: string; brand_id: string | null; subject: string }>(
      `select project_id, cast(date as varchar) as date, brand_id, subject from marts.measurement_events
       where kind = 'alias_added'`,
    );
    const own = await db.session.scalar(
      `select brand_id from staging.tracked_brands where is_own_brand and project_id = '${projectId}'`,
    );
    expect(events).toEqual([{ project_id: projectId, date: NEXT_DAY, brand_id: own, subject: ALIAS }]);
    // raw.project_aliases holds the newest sync's list only: the first sync's rows are gone, the history keeps them.
    const syncs = await db.session.scalar('select count(distinct _sync_run_id) from raw.project_aliases');
    expect(Number(syncs)).toBe(1);
    const firstSeen = await db.session.scalar(
      `select cast(min(valid_from) as date)::varchar from snapshots.project_aliases_history where alias_name <> '${ALIAS}'`,
    );
    expect(firstSeen).toBe(WORLD_TODAY);
  });
});

describe('marts.share_of_voice_daily flags', () => {
  it('flags a day incomplete as int_day_completeness does, only the newest, and holds no day past the horizon', async () => {
    const days = await db.session.all<{ project_id: string; date: string; is_complete: boolean; expected: boolean }>(`
      select s.project_id, cast(s.date as varchar) as date, bool_and(s.is_complete) as is_complete,
        bool_and(c.is_complete) as expected
      from marts.share_of_voice_daily as s
      join intermediate.int_day_completeness as c using (team_id, project_id, date)
      group by all`);
    expect(days.length).toBeGreaterThan(40);
    expect(days.filter((d) => d.is_complete !== d.expected)).toEqual([]);
    // The API's own day (NEXT_DAY, still being answered) is past the models' horizon: the mart never holds it, and
    // only the newest day it holds, whose late answers may still arrive, can be incomplete.
    expect(days.filter((d) => d.date === NEXT_DAY)).toEqual([]);
    for (const p of days.filter((d) => !d.is_complete)) expect(p.date).toBe(WORLD_TODAY);
  });

  it('flags a competitor starting or stopping being tracked on every brand’s rows of the project that day', async () => {
    const changes = await db.session.all<{ project_id: string; date: string }>(`
      select distinct project_id, cast(date as varchar) as date from marts.measurement_events
      where kind in ('competitor_tracked', 'competitor_dropped')`);
    expect(changes.length).toBeGreaterThan(0);
    const [check] = await db.session.all<{ flagged: number; own_flagged: number; wrong: number; misdated: number }>(`
      with changes as (
        select distinct team_id, project_id, date from marts.measurement_events
        where kind in ('competitor_tracked', 'competitor_dropped')
      )
      select
        (count(*) filter (where s.tracked_set_changed))::int as flagged,
        (count(*) filter (where s.tracked_set_changed and s.is_own_brand))::int as own_flagged,
        (count(*) filter (where s.tracked_set_changed <> (c.date is not null)))::int as wrong,
        (count(*) filter (where s.tracked_set_from > s.date
          or s.tracked_set_from < coalesce((select max(x.date) from changes as x
            where x.project_id = s.project_id and x.date <= s.date), s.tracked_set_from)))::int as misdated
      from marts.share_of_voice_daily as s
      left join changes as c using (team_id, project_id, date)`);
    expect(check?.wrong).toBe(0);
    expect(check?.misdated).toBe(0);
    expect(check?.own_flagged).toBeGreaterThan(0);
    expect(check?.flagged).toBeGreaterThan(check?.own_flagged ?? 0);
  });
});

describe('the share_of_voice report', () => {
  it('reads the 7 days ending on each project’s last complete day by default, not the partial newest day', async () => {
    const result = await runReport(db, findReport('share_of_voice', loadReports()), {});
    const rows = result.rows.map((r) => Object.fromEntries(result.columns.map((c, i) => [c, r[i]])));
    expect(rows.length).toBeGreaterThan(0);
    const expected = await db.session.all<{ project_id: string; responses: number }>(`
      select project_id, sum(responses)::int as responses from (
        select distinct project_id, date, responses from marts.share_of_voice_daily
        where provider = 'all' and date between date '${WORLD_TODAY}' - 6 and date '${WORLD_TODAY}')
      group by project_id`);
    for (const r of rows) {
      const day = (v: unknown) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v));
      expect(day(r.date_to)).toBe(WORLD_TODAY);
      expect(day(r.date_from)).toBe(addDays(WORLD_TODAY, -6));
      expect(Number(r.days_partial)).toBe(0);
      if (r.provider === 'all') {
        expect(Number(r.responses)).toBe(expected.find((e) => e.project_id === r.project_id)?.responses);
      }
    }
  });
});
