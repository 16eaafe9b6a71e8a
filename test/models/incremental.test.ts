import { afterEach, describe, expect, it } from 'vitest';
import { planProject } from '../../src/models/plan.js';
import { loadProject } from '../../src/models/project.js';
import { addDay, build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

const DAY = 86_400_000;
const daily = (extra = '') => `/* @model
kind: incremental_by_time_range
time_column: day
${extra}
*/
select day, brand, count(*) as chats
from raw.chats
where day between @start_date and @end_date
group by all`;

async function intervals(): Promise<number> {
  return Number(await s.db.session.scalar("SELECT count(*) FROM ops.model_intervals WHERE model = 'marts.daily'"));
}

describe('incremental_by_time_range', () => {
  it('processes every day up to yesterday, then nothing, then exactly the new day', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5); // 2026-01-01..05, clock on 2026-01-06
    writeModels(s.modelsDir, { 'marts/daily.sql': daily() });
    const first = await build(s);
    expect(first.byId('marts.daily')).toMatchObject({
      status: 'success',
      intervals: '2026-01-01..2026-01-05',
      rowsAffected: 10,
    });
    expect(await intervals()).toBe(5);

    const second = await build(s);
    expect(second.byId('marts.daily')).toMatchObject({ status: 'success', intervals: '', rowsAffected: 0 });

    await addDay(s.db, '2026-01-06');
    await s.clock.advance(DAY);
    const third = await build(s);
    expect(third.byId('marts.daily')).toMatchObject({ intervals: '2026-01-06', rowsAffected: 2 });
    expect(await intervals()).toBe(6);
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(12);
  });

  it('starts at the header start and reprocesses lookback days before a missing one', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily('start: 2026-01-03\nlookback: 2') });
    expect((await build(s)).byId('marts.daily').intervals).toBe('2026-01-03..2026-01-05');
    await addDay(s.db, '2026-01-06');
    await s.clock.advance(DAY);
    expect((await build(s)).byId('marts.daily').intervals).toBe('2026-01-04..2026-01-06');
    // re-processing replaced the days rather than doubling them
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(8);
  });

  it('--start/--end reprocess a range that is already done, and batch_days splits transactions', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily('batch_days: 2') });
    expect((await build(s)).byId('marts.daily').intervals).toBe(
      '2026-01-01..2026-01-02, 2026-01-03..2026-01-04, 2026-01-05',
    );
    await s.db.session.run("UPDATE raw.chats SET brand = 'initech' WHERE day = DATE '2026-01-02'");
    const r = await build(s, { start: '2026-01-02', end: '2026-01-02' });
    expect(r.byId('marts.daily').intervals).toBe('2026-01-02');
    expect(await s.db.session.all("SELECT brand, chats FROM marts.daily WHERE day = DATE '2026-01-02'")).toEqual([
      { brand: 'initech', chats: 4 },
    ]);
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(9);
  });

  it('batch_rows grows the batches of a small history past batch_days, by the rows of the inputs', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5); // 4 chats a day: 20 rows of raw.chats, the model's one input
    const first = async (rows: number) => {
      writeModels(s.modelsDir, { 'marts/daily.sql': daily(`batch_days: 2\nbatch_rows: ${rows}`) });
      return (await build(s, { fullRefresh: true })).byId('marts.daily');
    };
    // 8 rows a batch: 2 days, as batch_days alone; 12: 3 days; 1,000: the five days in one batch.
    expect((await first(8)).intervals).toBe('2026-01-01..2026-01-02, 2026-01-03..2026-01-04, 2026-01-05');
    expect((await first(12)).intervals).toBe('2026-01-01..2026-01-03, 2026-01-04..2026-01-05');
    expect(await first(1000)).toMatchObject({
      status: 'success',
      intervals: '2026-01-01..2026-01-05',
      rowsAffected: 10,
    });
    // A first build (no full refresh) alike, with the same rows.
    const rows = await s.db.session.all('SELECT * FROM marts.daily ORDER BY day, brand');
    await s.db.session.run('DROP TABLE marts.daily');
    expect((await build(s)).byId('marts.daily').intervals).toBe('2026-01-01..2026-01-05');
    expect(await s.db.session.all('SELECT * FROM marts.daily ORDER BY day, brand')).toEqual(rows);
    expect(await intervals()).toBe(5);
  });

  it("a batched model's first build looks for its first day a batch at a time, never over the whole history", async () => {
    s = await sandbox();
    await seedRaw(s.db, 9); // 2026-01-01..09
    await s.clock.advance(4 * DAY); // on the 10th
    // Each mart fails if one query of it reads more than its batch of days: what holds a batched model's memory
    // to a batch. The first day used to be asked of one query over every day.
    const batched = (where: string) => `/* @model
kind: incremental_by_time_range
time_column: day
batch_days: 3
*/
select day, sum(chats) as chats
from intermediate.daily
where day between @start_date and @end_date and ${where}
  and case when (select count(distinct day) from intermediate.daily where day between @start_date and @end_date) > 3
    then error('read more than a batch') else true end
group by day`;
    writeModels(s.modelsDir, {
      'intermediate/daily.sql': daily(),
      'marts/early.sql': batched('true'),
      // Rows only from the 5th: the batches before it are empty, and the first day is still the query's own.
      'marts/late.sql': batched("day >= DATE '2026-01-05'"),
    });
    const first = await build(s);
    expect(first.byId('marts.early')).toMatchObject({
      status: 'success',
      intervals: '2026-01-01..2026-01-03, 2026-01-04..2026-01-06, 2026-01-07..2026-01-09',
    });
    expect(first.byId('marts.late')).toMatchObject({
      status: 'success',
      intervals: '2026-01-05..2026-01-07, 2026-01-08..2026-01-09',
    });
    const project = await loadProject(s.modelsDir);
    expect((await planProject(s.db, project, { clock: s.clock })).map((e) => e.missing)).toEqual([[], [], []]);
    // From scratch alike, and to the same rows.
    const before = await s.db.session.all('SELECT * FROM marts.late ORDER BY day');
    const again = await build(s, { fullRefresh: true });
    expect(again.byId('marts.late')).toMatchObject({
      status: 'success',
      intervals: first.byId('marts.late').intervals,
    });
    expect(await s.db.session.all('SELECT * FROM marts.late ORDER BY day')).toEqual(before);
  });

  it("stores a batch's rows in the order of the time column, whatever order its query gives them", async () => {
    s = await sandbox();
    await seedRaw(s.db, 9);
    await s.clock.advance(4 * DAY);
    // The query hands its rows newest first; the table keeps them day by day (what lets a row group's zonemap bound
    // a few days: docs/lake.md), in a batched build, a night's days and a full refresh alike.
    writeModels(s.modelsDir, {
      'marts/daily.sql': daily('batch_days: 4').replace('group by all', 'group by all order by day desc, brand'),
    });
    const inOrder = async () =>
      s.db.session.scalar<boolean>(
        'SELECT bool_and(day >= previous) FROM (SELECT day, lag(day) OVER (ORDER BY rowid) AS previous FROM marts.daily) WHERE previous IS NOT NULL',
      );
    expect((await build(s)).byId('marts.daily').intervals).toBe(
      '2026-01-01..2026-01-04, 2026-01-05..2026-01-08, 2026-01-09',
    );
    expect(await inOrder()).toBe(true);
    await addDay(s.db, '2026-01-10');
    await addDay(s.db, '2026-01-11');
    await s.clock.advance(2 * DAY);
    expect((await build(s)).byId('marts.daily').intervals).toBe('2026-01-10..2026-01-11');
    expect(await inOrder()).toBe(true);
    expect((await build(s, { fullRefresh: true })).byId('marts.daily').status).toBe('success');
    expect(await inOrder()).toBe(true);
    expect(await s.db.session.scalar('SELECT count(DISTINCT day) FROM marts.daily')).toBe(11);
  });

  it('a failing interval leaves no rows and no bookkeeping for it', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, {
      'marts/daily.sql': daily()
        .replace(
          'count(*) as chats',
          "count(*) as chats, cast(case when day = DATE '2026-01-03' then 'x' else '1' end as integer) as boom",
        )
        .replace('group by all', 'group by day, brand'),
    });
    // one transaction per batch (no batch_days: all three days together) so nothing is written at all
    const r = await build(s);
    expect(r.byId('marts.daily').status).toBe('error');
    expect(await intervals()).toBe(0);
    expect(await s.db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'daily'")).toBe(0);
  });

  it('days an upstream time-range model re-processes (its lookback) are re-processed downstream too', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5);
    writeModels(s.modelsDir, {
      'intermediate/daily.sql': daily('lookback: 2'),
      'marts/weekly.sql': `/* @model
kind: incremental_by_time_range
time_column: day
lookback: 1
*/
select day, sum(chats) as chats from intermediate.daily where day between @start_date and @end_date group by day`,
    });
    await build(s);
    // a late chat for the 4th arrives with the 6th
    await addDay(s.db, '2026-01-06');
    await s.db.session.run("INSERT INTO raw.chats VALUES (1000, DATE '2026-01-04', 'p1', 'acme', true, 1)");
    await s.clock.advance(DAY);
    const project = await loadProject(s.modelsDir);
    const plan = await planProject(s.db, project, { clock: s.clock });
    // the upstream's restated days are taken as they are, not extended by the mart's own lookback again (its
    // lookback applies to its own missing day, the 6th): the window does not grow at every level of the DAG
    expect(plan.map((e) => [e.id, e.missing])).toEqual([
      ['intermediate.daily', [{ from: '2026-01-04', to: '2026-01-06' }]],
      ['marts.weekly', [{ from: '2026-01-04', to: '2026-01-06' }]],
    ]);
    const r = await build(s);
    expect(r.byId('intermediate.daily').intervals).toBe('2026-01-04..2026-01-06');
    expect(r.byId('marts.weekly').intervals).toBe('2026-01-04..2026-01-06');
    expect(await s.db.session.scalar("SELECT chats FROM marts.weekly WHERE day = DATE '2026-01-04'")).toBe(5);
    // nothing upstream: nothing downstream
    expect((await build(s)).byId('marts.weekly').intervals).toBe('');
  });

  it('restate_landed re-processes the days of rows landed since the last build, however old', async () => {
    s = await sandbox();
    // Chart points as the sync lands them: each refresh stamps its rows with when it landed them.
    await s.db.session.run('CREATE SCHEMA IF NOT EXISTS raw');
    await s.db.session.run(`CREATE TABLE raw.points AS
      SELECT DATE '2026-01-01' + CAST(d AS INTEGER) AS day, 10 * (d + 1) AS value,
             TIMESTAMP '2026-01-05 12:00:00' AS _extracted_at
      FROM range(5) AS t(d)`);
    const points = (header: string) => `/* @model
kind: incremental_by_time_range
time_column: day
${header}
*/
select day, arg_max(value, _extracted_at) as value, max(_extracted_at) as _extracted_at
from raw.points where day between @start_date and @end_date group by day`;
    writeModels(s.modelsDir, {
      'staging/landed.sql': points('restate_landed: raw.points'),
      'staging/lookback_only.sql': points('lookback: 1'),
    });
    const first = await build(s);
    expect(first.byId('staging.landed').intervals).toBe('2026-01-01..2026-01-05');

    // A new day: that day only (the old ones hold nothing newer than what the model read).
    await s.clock.advance(DAY);
    await s.db.session.run("INSERT INTO raw.points VALUES (DATE '2026-01-06', 60, TIMESTAMP '2026-01-07 02:00:00')");
    expect((await build(s)).byId('staging.landed').intervals).toBe('2026-01-06');

    // A refresh re-fetches the 2nd, five days back: past any lookback, but landed after the last build.
    await s.db.session.run("INSERT INTO raw.points VALUES (DATE '2026-01-02', 25, TIMESTAMP '2026-01-07 03:00:00')");
    const project = await loadProject(s.modelsDir);
    const plan = await planProject(s.db, project, { clock: s.clock });
    expect(plan.find((e) => e.id === 'staging.landed')?.missing).toEqual([{ from: '2026-01-02', to: '2026-01-02' }]);
    const night = await build(s);
    expect(night.byId('staging.landed').intervals).toBe('2026-01-02');
    expect(await s.db.session.scalar("SELECT value FROM staging.landed WHERE day = DATE '2026-01-02'")).toBe(25);
    // Without it, only the lookback's days would be read again: the refreshed 2nd keeps its old value.
    expect(night.byId('staging.lookback_only').intervals).toBe('');
    expect(await s.db.session.scalar("SELECT value FROM staging.lookback_only WHERE day = DATE '2026-01-02'")).toBe(20);
    // Once processed, the same rows restate nothing.
    await s.db.session.run("INSERT INTO raw.points VALUES (DATE '2026-01-07', 70, TIMESTAMP '2026-01-08 02:00:00')");
    await s.clock.advance(DAY);
    expect((await build(s)).byId('staging.landed').intervals).toBe('2026-01-07');
  });

  it('restate_landed re-processes a day built empty, and a done day past --end once a build reaches it', async () => {
    s = await sandbox();
    // The days were built while the sync had landed nothing for them (a clock ahead of the API): no rows at all.
    await s.db.session.run('CREATE SCHEMA IF NOT EXISTS raw');
    await s.db.session.run(`CREATE TABLE raw.points AS
      SELECT DATE '2026-01-01' + CAST(d AS INTEGER) AS day, 10 AS value, TIMESTAMP '2026-01-05 12:00:00' AS _extracted_at
      FROM range(5) AS t(d) WHERE d > 9`);
    writeModels(s.modelsDir, {
      'staging/landed.sql': `/* @model
kind: incremental_by_time_range
time_column: day
start: 2026-01-01
restate_landed: raw.points
*/
select day, arg_max(value, _extracted_at) as value, max(_extracted_at) as _extracted_at
from raw.points where day between @start_date and @end_date group by day`,
    });
    expect((await build(s)).byId('staging.landed').intervals).toBe('2026-01-01..2026-01-05');
    const held = () => s.db.session.all("SELECT strftime(day, '%d') AS day FROM staging.landed ORDER BY day");
    expect(await held()).toEqual([]);
    // Their answers land: the model held no row, so it had read none of them.
    await s.db.session.run(`INSERT INTO raw.points VALUES (DATE '2026-01-02', 20, TIMESTAMP '2026-01-06 02:00:00'),
      (DATE '2026-01-04', 40, TIMESTAMP '2026-01-06 02:00:00')`);
    expect((await build(s)).byId('staging.landed').intervals).toBe('2026-01-02, 2026-01-04');
    expect(await held()).toEqual([{ day: '02' }, { day: '04' }]);

    // Rows land for the 3rd and the 5th; a build stopped at the 4th moves the model's newest stamp past both.
    await s.db.session.run(`INSERT INTO raw.points VALUES (DATE '2026-01-03', 30, TIMESTAMP '2026-01-06 03:00:00'),
      (DATE '2026-01-05', 50, TIMESTAMP '2026-01-06 03:00:00')`);
    expect((await build(s, { end: '2026-01-04' })).byId('staging.landed').intervals).toBe('2026-01-03');
    // The 5th, done before its row landed, is still re-processed by the next build that reaches it.
    expect((await build(s)).byId('staging.landed').intervals).toBe('2026-01-05');
    expect(await held()).toEqual([{ day: '02' }, { day: '03' }, { day: '04' }, { day: '05' }]);
    expect((await build(s)).byId('staging.landed').intervals).toBe('');
  });

  it('restate_landed must name raw tables the model reads', async () => {
    s = await sandbox();
    await seedRaw(s.db, 2);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily('restate_landed: raw.projects') });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(
      /marts\/daily\.sql: restate_landed names raw\.projects, which the model does not read \(it reads raw\.chats\)/,
    );
    writeModels(s.modelsDir, {
      'marts/daily.sql': '/* @model\nrestate_landed: raw.chats\n*/\nselect * from raw.chats',
    });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/kind view takes no restate_landed/);
  });

  it('reads_back: a day re-processed upstream also re-processes the days whose rolling window reads it', async () => {
    s = await sandbox();
    await seedRaw(s.db, 10); // 2026-01-01..10
    await s.clock.advance(5 * DAY); // 2026-01-11: yesterday is the 10th
    writeModels(s.modelsDir, {
      'intermediate/daily.sql': daily(),
      'marts/rolling.sql': `/* @model
kind: incremental_by_time_range
time_column: day
reads_back: 2
*/
select day, cast(sum(chats) over (order by day rows between 2 preceding and current row) as integer) as chats_3d
from (select day, sum(chats) as chats from intermediate.daily where day between @start_date - 2 and @end_date group by day)`,
    });
    const rolling = () =>
      s.db.session.all("SELECT strftime(day, '%d') AS day, chats_3d FROM marts.rolling ORDER BY day");
    // what a build from scratch gives: the 3 days ending on each day, over every chat
    const fromScratch = () =>
      s.db.session.all(`SELECT strftime(day, '%d') AS day,
          cast(sum(count(*)) over (order by day rows between 2 preceding and current row) as integer) AS chats_3d
        FROM raw.chats GROUP BY day ORDER BY day`);
    const late = (day: string, n: number) =>
      s.db.session.run(
        `INSERT INTO raw.chats SELECT 1000 * ${n} + i, DATE '${day}', 'p1', 'acme', true, 1 FROM range(${n}) AS u(i)`,
      );
    expect((await build(s)).byId('marts.rolling').intervals).toBe('2026-01-01..2026-01-10');

    // late chats of the 2nd, re-processed by the daily model alone: the 2nd is restated for the rolling mart, whose
    // next build also re-processes the 3rd and the 4th (their windows read the 2nd), and only those
    await late('2026-01-02', 3);
    expect(
      (await build(s, { select: ['intermediate.daily'], start: '2026-01-02', end: '2026-01-02' })).byId(
        'intermediate.daily',
      ).intervals,
    ).toBe('2026-01-02');
    const project = await loadProject(s.modelsDir);
    const plan = await planProject(s.db, project, { clock: s.clock });
    expect(plan.find((e) => e.id === 'marts.rolling')?.missing).toEqual([{ from: '2026-01-02', to: '2026-01-04' }]);
    expect((await build(s)).byId('marts.rolling').intervals).toBe('2026-01-02..2026-01-04');
    expect(await rolling()).toEqual(await fromScratch());

    // a backfill that stops at the 5th (--end): the 6th and 7th read the 5th, so they are stale until the next build
    await late('2026-01-05', 5);
    expect((await build(s, { start: '2026-01-05', end: '2026-01-05' })).byId('marts.rolling').intervals).toBe(
      '2026-01-05',
    );
    expect(await rolling()).not.toEqual(await fromScratch());
    expect((await build(s)).byId('marts.rolling').intervals).toBe('2026-01-06..2026-01-07');
    expect(await rolling()).toEqual(await fromScratch());
    expect((await build(s)).byId('marts.rolling').intervals).toBe('');
  });

  it('--full-refresh rebuilds every interval', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily() });
    await build(s);
    const r = await build(s, { fullRefresh: true });
    expect(r.byId('marts.daily')).toMatchObject({ intervals: '2026-01-01..2026-01-05', rowsAffected: 6 });
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(6);
  });
});

describe('incremental_by_unique_key', () => {
  for (const strategy of ['delete+insert', 'merge']) {
    it(`replaces rows by key (${strategy})`, async () => {
      s = await sandbox();
      await seedRaw(s.db);
      writeModels(s.modelsDir, {
        'marts/projects.sql': `/* @model\nkind: incremental_by_unique_key\nunique_key: id\nstrategy: ${strategy}\n*/
select id, name, status from raw.projects where status <> 'gone'`,
      });
      await build(s);
      await s.db.session.run("UPDATE raw.projects SET name = 'Alpha 2' WHERE id = 1");
      await s.db.session.run("UPDATE raw.projects SET status = 'gone' WHERE id = 2");
      await s.db.session.run("INSERT INTO raw.projects VALUES (3, 'Gamma', 'active', TIMESTAMP '2026-01-02 00:00:00')");
      const r = await build(s);
      expect(r.byId('marts.projects').status).toBe('success');
      // id 2 is no longer returned, so it keeps its last version (upsert, not a rebuild)
      expect(await s.db.session.all('SELECT id, name, status FROM marts.projects ORDER BY id')).toEqual([
        { id: 1, name: 'Alpha 2', status: 'active' },
        { id: 2, name: 'Beta', status: 'active' },
        { id: 3, name: 'Gamma', status: 'active' },
      ]);
    });
  }
});

describe('incremental_by_unique_key window', () => {
  it('@start_date is the day of the last build (less lookback): each build reads only what changed since', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'marts/projects.sql': `/* @model\nkind: incremental_by_unique_key\nunique_key: id\n*/
select id, name, updated_at from raw.projects where updated_at >= @start_date`,
    });
    expect((await build(s)).byId('marts.projects')).toMatchObject({ rowsAffected: 2, message: 'built in full' });
    await s.clock.advance(DAY); // 2026-01-07
    await s.db.session.run(
      "UPDATE raw.projects SET name = 'Alpha 2', updated_at = TIMESTAMP '2026-01-06 12:00:00' WHERE id = 1",
    );
    const r = await build(s);
    expect(r.byId('marts.projects')).toMatchObject({ rowsAffected: 1, message: 'delete+insert from 2026-01-06' });
    expect(await s.db.session.all('SELECT id, name FROM marts.projects ORDER BY id')).toEqual([
      { id: 1, name: 'Alpha 2' },
      { id: 2, name: 'Beta' },
    ]);
    // --full-refresh reads everything again
    expect((await build(s, { fullRefresh: true })).byId('marts.projects').rowsAffected).toBe(2);
  });
});

describe('scd2', () => {
  const history = async () =>
    s.db.session.all(
      "SELECT id, name, strftime(valid_from, '%Y-%m-%d') AS valid_from, strftime(valid_to, '%Y-%m-%d') AS valid_to FROM snapshots.projects ORDER BY id, valid_from",
    );

  it('by changed columns: closes changed and deleted rows, opens new versions, never rebuilds', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'snapshots/projects.sql':
        '/* @model\nkind: scd2\nunique_key: id\ncheck_columns: [name]\n*/\nselect id, name, status from raw.projects',
    });
    await build(s);
    await s.clock.advance(DAY); // 2026-01-07
    await s.db.session.run("UPDATE raw.projects SET name = 'Alpha 2' WHERE id = 1");
    await s.db.session.run('DELETE FROM raw.projects WHERE id = 2');
    await s.db.session.run("INSERT INTO raw.projects VALUES (3, 'Gamma', 'active', TIMESTAMP '2026-01-02 00:00:00')");
    await build(s);
    const expected = [
      { id: 1, name: 'Alpha', valid_from: '2026-01-06', valid_to: '2026-01-07' },
      { id: 1, name: 'Alpha 2', valid_from: '2026-01-07', valid_to: null },
      { id: 2, name: 'Beta', valid_from: '2026-01-06', valid_to: '2026-01-07' },
      { id: 3, name: 'Gamma', valid_from: '2026-01-07', valid_to: null },
    ];
    expect(await history()).toEqual(expected);
    // nothing changed: nothing written; a status change is not a tracked column
    await s.clock.advance(DAY);
    await s.db.session.run("UPDATE raw.projects SET status = 'paused' WHERE id = 3");
    expect((await build(s)).byId('snapshots.projects').rowsAffected).toBe(0);
    // --full-refresh and a changed SQL keep the history
    writeModels(s.modelsDir, {
      'snapshots/projects.sql':
        '/* @model\nkind: scd2\nunique_key: id\ncheck_columns: [name]\n*/\nselect id, name, status, 1 as v from raw.projects',
    });
    await s.db.session.run('ALTER TABLE snapshots.projects ADD COLUMN v INTEGER');
    await build(s, { fullRefresh: true });
    expect((await history()).slice(0, 3)).toEqual(expected.slice(0, 3));
  });

  it('by an updated-at column: versions are dated by it', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'snapshots/projects.sql':
        '/* @model\nkind: scd2\nunique_key: id\nupdated_at: updated_at\n*/\nselect * from raw.projects',
    });
    await build(s);
    await s.db.session.run(
      "UPDATE raw.projects SET name = 'Alpha 2', updated_at = TIMESTAMP '2026-01-03 12:00:00' WHERE id = 1",
    );
    // a changed column without a newer updated_at is not a new version under this strategy
    await s.db.session.run("UPDATE raw.projects SET name = 'Beta 2' WHERE id = 2");
    await build(s);
    expect(await history()).toEqual([
      { id: 1, name: 'Alpha', valid_from: '2026-01-01', valid_to: '2026-01-03' },
      { id: 1, name: 'Alpha 2', valid_from: '2026-01-03', valid_to: null },
      { id: 2, name: 'Beta', valid_from: '2026-01-01', valid_to: null },
    ]);
  });
});
