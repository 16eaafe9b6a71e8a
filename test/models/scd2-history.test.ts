import { afterEach, describe, expect, it } from 'vitest';
import { parseModelHeader } from '../../src/models/header.js';
import { build, type Sandbox, sandbox, writeModels } from './support.js';

/**
 * scd2 with a dated source: several rows per key (one per snapshot day, or per updated_at) rebuild the history on the
 * first build, and later builds apply only rows newer than what the table knows.
 */
let s: Sandbox | undefined;
afterEach(() => {
  s?.cleanup();
  s = undefined;
});

const DAY = 86_400_000;
const model = (extra: string, select = 'select id, day, name, status from raw.daily') =>
  `/* @model\nkind: scd2\nunique_key: id\n${extra}\n*/\n${select}`;
const checked = model('snapshot_time_column: day\ncheck_columns: [name]');

async function seed(sb: Sandbox, rows: Array<[number, string, string, string]>): Promise<void> {
  await sb.db.session.run('CREATE SCHEMA IF NOT EXISTS raw');
  await sb.db.session.run('CREATE OR REPLACE TABLE raw.daily (id INTEGER, day DATE, name VARCHAR, status VARCHAR)');
  await addRows(sb, rows);
}

async function addRows(sb: Sandbox, rows: Array<[number, string, string, string]>): Promise<void> {
  for (const [id, day, name, status] of rows) {
    await sb.db.session.run('INSERT INTO raw.daily VALUES ($1, CAST($2 AS DATE), $3, $4)', [id, day, name, status]);
  }
}

const history = async (sb: Sandbox, table = 'snapshots.h') =>
  sb.db.session.all(
    `SELECT id, name, strftime(valid_from, '%Y-%m-%d') AS valid_from, strftime(valid_to, '%Y-%m-%d') AS valid_to
     FROM ${table} ORDER BY id, valid_from`,
  );

// id 1: A A B B A -> three versions; id 2: X on every day -> one; id 3: only from day 3.
const fiveDays: Array<[number, string, string, string]> = [
  [1, '2026-01-01', 'A', 'on'],
  [1, '2026-01-02', 'A', 'off'], // status is not checked: no new version
  [1, '2026-01-03', 'B', 'on'],
  [1, '2026-01-04', 'B', 'on'],
  [1, '2026-01-05', 'A', 'on'],
  [2, '2026-01-01', 'X', 'on'],
  [2, '2026-01-02', 'X', 'on'],
  [2, '2026-01-03', 'X', 'on'],
  [2, '2026-01-04', 'X', 'on'],
  [2, '2026-01-05', 'X', 'on'],
  [3, '2026-01-03', 'Q', 'on'],
  [3, '2026-01-04', 'Q', 'on'],
  [3, '2026-01-05', 'Q', 'on'],
];
const fiveDayHistory = [
  { id: 1, name: 'A', valid_from: '2026-01-01', valid_to: '2026-01-03' },
  { id: 1, name: 'B', valid_from: '2026-01-03', valid_to: '2026-01-05' },
  { id: 1, name: 'A', valid_from: '2026-01-05', valid_to: null },
  { id: 2, name: 'X', valid_from: '2026-01-01', valid_to: null },
  { id: 3, name: 'Q', valid_from: '2026-01-03', valid_to: null },
];

describe('scd2 check strategy with snapshot_time_column', () => {
  it('the first build reconstructs every version from a multi-day source, unchanged days collapsed', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    const r = await build(s);
    expect(r.byId('snapshots.h')).toMatchObject({ status: 'success', rowsAffected: 5 });
    expect(await history(s)).toEqual(fiveDayHistory);
    // a version keeps the values of its first row (id 1's first version is dated 01-01 with status on)
    // and last_seen is the newest day folded into it
    expect(
      await s.db.session.all(
        `SELECT strftime(day, '%m-%d') AS day, status, strftime(last_seen, '%m-%d') AS last_seen
         FROM snapshots.h WHERE id = 1 ORDER BY valid_from`,
      ),
    ).toEqual([
      { day: '01-01', status: 'on', last_seen: '01-02' },
      { day: '01-03', status: 'on', last_seen: '01-04' },
      { day: '01-05', status: 'on', last_seen: '01-05' },
    ]);
  });

  it('a second build with no new data changes nothing; a changed day closes one version and opens one', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    await build(s);
    const snapshot = await s.db.session.all('SELECT * FROM snapshots.h ORDER BY id, valid_from');
    await s.clock.advance(DAY);
    expect((await build(s)).byId('snapshots.h')).toMatchObject({ status: 'success', rowsAffected: 0 });
    expect(await s.db.session.all('SELECT * FROM snapshots.h ORDER BY id, valid_from')).toEqual(snapshot);

    // day 6: id 1 unchanged (collapses into its current version), id 2 renamed, id 3 unchanged
    await addRows(s, [
      [1, '2026-01-06', 'A', 'off'],
      [2, '2026-01-06', 'Y', 'on'],
      [3, '2026-01-06', 'Q', 'on'],
    ]);
    // id 2: one close and one insert; ids 1 and 3: their current version's last_seen moves to 01-06
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(4);
    expect(await s.db.session.scalar("SELECT count(*) FROM snapshots.h WHERE last_seen = DATE '2026-01-06'")).toBe(3);
    expect(await history(s)).toEqual([
      ...fiveDayHistory.slice(0, 3),
      { id: 2, name: 'X', valid_from: '2026-01-01', valid_to: '2026-01-06' },
      { id: 2, name: 'Y', valid_from: '2026-01-06', valid_to: null },
      fiveDayHistory[4],
    ]);
    // and again: idempotent
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(0);
  });

  it('several new days at once are applied in order: versions between builds are kept, not collapsed into one', async () => {
    s = await sandbox();
    await seed(
      s,
      fiveDays.filter(([, day]) => day <= '2026-01-02'),
    );
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    await build(s);
    await addRows(
      s,
      fiveDays.filter(([, day]) => day > '2026-01-02'),
    );
    await build(s);
    // the same history as one build over all five days
    expect(await history(s)).toEqual(fiveDayHistory);
  });

  it('never rewrites history: a late row dated before a key’s current version is ignored', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    await build(s);
    await s.db.session.run("UPDATE raw.daily SET name = 'changed' WHERE day < DATE '2026-01-05'");
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(0);
    expect(await history(s)).toEqual(fiveDayHistory);
  });

  it('refuses two rows for one key and date, naming the file, the key and the date, and writes nothing', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    await build(s);
    await addRows(s, [
      [2, '2026-01-06', 'Y', 'on'],
      [3, '2026-01-06', 'Q', 'on'],
      [3, '2026-01-06', 'R', 'on'],
    ]);
    const r = await build(s);
    expect(r.byId('snapshots.h')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(
        /snapshots\/h\.sql.*more than one row for one unique_key \[id\] and snapshot_time_column day, e\.g\. \(3\) at 2026-01-06 00:00:00 x2/,
      ),
    });
    // id 2's change on the same day was not applied either
    expect(await history(s)).toEqual(fiveDayHistory);

    // and on a first build: no table is left behind
    s.cleanup();
    s = await sandbox();
    await seed(s, [
      [1, '2026-01-01', 'A', 'on'],
      [1, '2026-01-01', 'A', 'on'],
    ]);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    expect((await build(s)).byId('snapshots.h').status).toBe('error');
    expect(
      await s.db.session.scalar(
        "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'snapshots' AND table_name = 'h'",
      ),
    ).toBe(0);
  });

  it('refuses a NULL date', async () => {
    s = await sandbox();
    await seed(s, [[1, '2026-01-01', 'A', 'on']]);
    await s.db.session.run("INSERT INTO raw.daily VALUES (2, NULL, 'B', 'on')");
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    expect((await build(s)).byId('snapshots.h')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/snapshot_time_column day is NULL for key \(2\)/),
    });
  });

  it('closes a key gone from the source at build time, and reopens it at build time when it returns unchanged', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    await build(s); // 2026-01-06 03:00
    await s.db.session.run('DELETE FROM raw.daily WHERE id = 3');
    await s.clock.advance(DAY); // 2026-01-07
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(1);
    expect((await history(s)).filter((r) => r.id === 3)).toEqual([
      { id: 3, name: 'Q', valid_from: '2026-01-03', valid_to: '2026-01-07' },
    ]);
    // back with its old rows only: a new version from this build; with a newer day: from that day
    await addRows(s, [[3, '2026-01-05', 'Q', 'on']]);
    await s.clock.advance(DAY); // 2026-01-08
    await build(s);
    expect((await history(s)).filter((r) => r.id === 3)).toEqual([
      { id: 3, name: 'Q', valid_from: '2026-01-03', valid_to: '2026-01-07' },
      { id: 3, name: 'Q', valid_from: '2026-01-08', valid_to: null },
    ]);
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(0);
  });

  it('adds a column the query starts returning; old headers without snapshot_time_column still take one row per key', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    writeModels(s.modelsDir, {
      'snapshots/h.sql': checked,
      'snapshots/old.sql': model(
        'check_columns: [name]',
        'select id, name from raw.daily qualify row_number() over (partition by id order by day desc) = 1',
      ),
      'snapshots/dupes.sql': model('check_columns: [name]'),
    });
    const r = await build(s);
    expect(r.byId('snapshots.old')).toMatchObject({ status: 'success', rowsAffected: 3 });
    // undated: versions start at build time
    expect(await history(s, 'snapshots.old')).toEqual([
      { id: 1, name: 'A', valid_from: '2026-01-06', valid_to: null },
      { id: 2, name: 'X', valid_from: '2026-01-06', valid_to: null },
      { id: 3, name: 'Q', valid_from: '2026-01-06', valid_to: null },
    ]);
    expect(r.byId('snapshots.dupes')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/more than one row per unique_key \[id\]/),
    });
    writeModels(s.modelsDir, {
      'snapshots/h.sql': checked.replace('status from', "status, 'eu' as region from"),
    });
    await addRows(s, [[2, '2026-01-06', 'Y', 'on']]);
    const r2 = await build(s, { select: ['snapshots.h'] });
    expect(r2.byId('snapshots.h').message).toContain('new column(s) region added');
    expect(await s.db.session.all('SELECT id, region FROM snapshots.h WHERE valid_to IS NULL ORDER BY id')).toEqual([
      { id: 1, region: null },
      { id: 2, region: 'eu' },
      { id: 3, region: null },
    ]);
  });
});

describe('an existing snapshot switched to a dated source', () => {
  it('keeps its versions, learns last_seen and folds the days it already holds', async () => {
    s = await sandbox();
    await seed(s, fiveDays);
    // built before: one row per key (the newest day), versions dated by the build (2026-01-06 03:00)
    writeModels(s.modelsDir, {
      'snapshots/h.sql': model(
        'check_columns: [name]',
        'select id, day, name, status from raw.daily qualify row_number() over (partition by id order by day desc) = 1',
      ),
    });
    await build(s);
    writeModels(s.modelsDir, { 'snapshots/h.sql': checked });
    await addRows(s, [
      [1, '2026-01-07', 'A', 'on'],
      [2, '2026-01-07', 'Z', 'on'],
    ]);
    await s.clock.advance(DAY);
    const r = await build(s);
    expect(r.byId('snapshots.h')).toMatchObject({ status: 'success', rowsAffected: 3 });
    // days up to the old build are not re-applied; 01-07 is: id 1 unchanged (last_seen), id 2 renamed
    expect(await history(s)).toEqual([
      { id: 1, name: 'A', valid_from: '2026-01-06', valid_to: null },
      { id: 2, name: 'X', valid_from: '2026-01-06', valid_to: '2026-01-07' },
      { id: 2, name: 'Z', valid_from: '2026-01-07', valid_to: null },
      { id: 3, name: 'Q', valid_from: '2026-01-06', valid_to: null },
    ]);
  });
});

describe('scd2 timestamp strategy with several rows per key', () => {
  const stamped = model(
    'updated_at: updated_at',
    'select id, name, cast(day as timestamp) + interval 12 hour as updated_at from raw.daily',
  );

  it('every newer updated_at is a version; re-running adds nothing; a newer row closes and opens one', async () => {
    s = await sandbox();
    await seed(s, [
      [1, '2026-01-01', 'A', 'on'],
      [1, '2026-01-03', 'A', 'on'],
      [1, '2026-01-04', 'B', 'on'],
      [2, '2026-01-02', 'X', 'on'],
    ]);
    writeModels(s.modelsDir, { 'snapshots/h.sql': stamped });
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(4);
    const rows = async () =>
      s?.db.session.all(
        `SELECT id, name, strftime(valid_from, '%m-%d %H') AS f, strftime(valid_to, '%m-%d %H') AS t
         FROM snapshots.h ORDER BY id, valid_from`,
      );
    const first = [
      { id: 1, name: 'A', f: '01-01 12', t: '01-03 12' },
      { id: 1, name: 'A', f: '01-03 12', t: '01-04 12' },
      { id: 1, name: 'B', f: '01-04 12', t: null },
      { id: 2, name: 'X', f: '01-02 12', t: null },
    ];
    expect(await rows()).toEqual(first);
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(0);
    await addRows(s, [[2, '2026-01-05', 'Y', 'on']]);
    expect((await build(s)).byId('snapshots.h').rowsAffected).toBe(2);
    expect(await rows()).toEqual([
      ...first.slice(0, 3),
      { id: 2, name: 'X', f: '01-02 12', t: '01-05 12' },
      { id: 2, name: 'Y', f: '01-05 12', t: null },
    ]);
  });

  it('refuses two rows with the same key and updated_at', async () => {
    s = await sandbox();
    await seed(s, [
      [1, '2026-01-01', 'A', 'on'],
      [1, '2026-01-01', 'B', 'on'],
    ]);
    writeModels(s.modelsDir, { 'snapshots/h.sql': stamped });
    expect((await build(s)).byId('snapshots.h')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(
        /unique_key \[id\] and updated_at updated_at, e\.g\. \(1\) at 2026-01-01 12:00:00 x2/,
      ),
    });
  });
});

describe('the snapshot_time_column header key', () => {
  it('is for scd2 with strategy check; old headers stay valid', () => {
    expect(parseModelHeader({ kind: 'scd2', unique_key: 'id', snapshot_time_column: 'day' })).toMatchObject({
      scd2Strategy: 'check',
      snapshotTimeColumn: 'day',
    });
    // updated_at alone still means timestamp; with snapshot_time_column the default is check
    expect(parseModelHeader({ kind: 'scd2', unique_key: 'id', updated_at: 'u' }).scd2Strategy).toBe('timestamp');
    expect(
      parseModelHeader({ kind: 'scd2', unique_key: 'id', updated_at: 'u', snapshot_time_column: 'day' }).scd2Strategy,
    ).toBe('check');
    expect(parseModelHeader({ kind: 'scd2', unique_key: 'id' })).not.toHaveProperty('snapshotTimeColumn');
    expect(() =>
      parseModelHeader({
        kind: 'scd2',
        unique_key: 'id',
        strategy: 'timestamp',
        updated_at: 'u',
        snapshot_time_column: 'day',
      }),
    ).toThrow(/snapshot_time_column is for strategy check/);
    expect(() => parseModelHeader({ kind: 'table', snapshot_time_column: 'day' })).toThrow(/scd2 only/);
  });
});
