import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/models/project.js';
import { addDay, build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

const DAY = 86_400_000;
const daily = (extra = '', columns = 'day, brand, count(*) as chats') => `/* @model
kind: incremental_by_time_range
time_column: day
${extra}
*/
select ${columns}
from raw.chats
where day between @start_date and @end_date
group by all`;
const intervals = async (model = 'marts.daily') =>
  Number(await s.db.session.scalar('SELECT count(*) FROM ops.model_intervals WHERE model = $1', [model]));
const noTemp = async () =>
  Number(await s.db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%__vwh_new'"));

describe('incremental_by_time_range: what survives a failure', () => {
  it('a failing --full-refresh keeps the previous table and its intervals', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily() });
    await build(s);
    // 2026-01-01..05: the clock is on the 6th; the last two days have no chats
    expect(await intervals()).toBe(5);
    writeModels(s.modelsDir, {
      'marts/daily.sql': daily('', "day, brand, count(*) as chats, cast('x' || brand as integer) as boom"),
    });
    const r = await build(s, { fullRefresh: true });
    expect(r.byId('marts.daily')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/^marts\/daily\.sql: Conversion Error/),
    });
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(6);
    expect(await intervals()).toBe(5);
    expect(await noTemp()).toBe(0);
  });

  it('an error audit failing on a --full-refresh keeps the previous table', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, {
      'marts/daily.sql': daily('audits:\n  - accepted_values: {column: brand, values: [acme, globex]}'),
    });
    expect((await build(s)).byId('marts.daily').status).toBe('success');
    await s.db.session.run("UPDATE raw.chats SET brand = 'initech' WHERE day = DATE '2026-01-01'");
    const r = await build(s, { fullRefresh: true });
    expect(r.byId('marts.daily')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/previous one is kept/),
    });
    expect(await s.db.session.scalar("SELECT count(*) FROM marts.daily WHERE brand = 'initech'")).toBe(0);
    expect(await noTemp()).toBe(0);
  });

  it('a --full-refresh that succeeds records exactly the days it built', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily('batch_days: 2') });
    await build(s);
    await s.db.session.run("DELETE FROM raw.chats WHERE brand = 'globex'");
    const r = await build(s, { fullRefresh: true });
    expect(r.byId('marts.daily')).toMatchObject({ status: 'success', rowsAffected: 3 });
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(3);
    // start remembered from the first build: 2026-01-01; end yesterday: 2026-01-05
    expect(await intervals()).toBe(5);
    // late data before the remembered first day: a normal build does not look there, a full refresh starts over
    await s.db.session.run("INSERT INTO raw.chats VALUES (100, DATE '2025-12-30', 'p1', 'acme', true, 1)");
    expect((await build(s)).byId('marts.daily').intervals).toBe('');
    expect((await build(s, { fullRefresh: true })).byId('marts.daily').intervals).toBe(
      '2025-12-30..2025-12-31, 2026-01-01..2026-01-02, 2026-01-03..2026-01-04, 2026-01-05',
    );
    expect(await intervals()).toBe(7);
    expect((await build(s)).byId('marts.daily').intervals).toBe('');
  });

  it('a table dropped by hand is rebuilt in full, not left missing behind its recorded intervals', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily() });
    await build(s);
    await s.db.session.run('DROP TABLE marts.daily');
    const r = await build(s);
    expect(r.byId('marts.daily').intervals).toBe('2026-01-01..2026-01-05');
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily')).toBe(6);
  });

  it('with nothing to process yet the table still exists, so models downstream bind', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, {
      'marts/daily.sql': daily('start: 2026-02-01'),
      'marts/after.sql': 'select count(*) as n from marts.daily',
    });
    const r = await build(s);
    expect(r.byId('marts.daily')).toMatchObject({ status: 'success', intervals: '' });
    expect(r.byId('marts.after').status).toBe('success');
    expect(await s.db.session.scalar('SELECT n FROM marts.after')).toBe(0);
  });

  it('cuts days on a TIMESTAMP time column', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, {
      'marts/events.sql': `/* @model
kind: incremental_by_time_range
time_column: at
*/
select id, day + INTERVAL 23 HOUR as at from raw.chats
where day between @start_date and @end_date`,
    });
    expect((await build(s)).byId('marts.events')).toMatchObject({
      intervals: '2026-01-01..2026-01-05',
      rowsAffected: 12,
    });
    await addDay(s.db, '2026-01-06');
    await s.clock.advance(DAY);
    expect((await build(s)).byId('marts.events')).toMatchObject({ intervals: '2026-01-06', rowsAffected: 4 });
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.events')).toBe(16);
  });

  it('a column added to the SQL is added to the table (forward-only); old days keep NULL', async () => {
    s = await sandbox();
    await seedRaw(s.db, 3);
    writeModels(s.modelsDir, { 'marts/daily.sql': daily() });
    await build(s);
    writeModels(s.modelsDir, {
      'marts/daily.sql': daily('', 'day, brand, count(*) as chats, count(*) filter (where mentioned) as mentions'),
    });
    await addDay(s.db, '2026-01-06');
    await s.clock.advance(DAY);
    const r = await build(s);
    expect(r.byId('marts.daily')).toMatchObject({ status: 'success', intervals: '2026-01-06' });
    expect(r.byId('marts.daily').message).toContain('new column(s) mentions added');
    expect(
      await s.db.session.all(
        'SELECT day::VARCHAR AS day, count(mentions) AS filled FROM marts.daily GROUP BY day ORDER BY day',
      ),
    ).toEqual([
      { day: '2026-01-01', filled: 0 },
      { day: '2026-01-02', filled: 0 },
      { day: '2026-01-03', filled: 0 },
      { day: '2026-01-06', filled: 2 },
    ]);
  });
});

describe('incremental_by_unique_key: failures and new columns', () => {
  it('a failing SQL keeps the previous rows; a new column is added for both strategies', async () => {
    for (const strategy of ['merge', 'delete+insert']) {
      s = await sandbox();
      await seedRaw(s.db);
      const model = (columns: string) =>
        `/* @model\nkind: incremental_by_unique_key\nunique_key: id\nstrategy: ${strategy}\n*/\nselect ${columns} from raw.projects`;
      writeModels(s.modelsDir, { 'marts/projects.sql': model('id, name') });
      await build(s);
      writeModels(s.modelsDir, { 'marts/projects.sql': model("id, cast(name || 'x' as integer) as name") });
      expect((await build(s)).byId('marts.projects').status).toBe('error');
      expect(await s.db.session.all('SELECT id, name FROM marts.projects ORDER BY id')).toEqual([
        { id: 1, name: 'Alpha' },
        { id: 2, name: 'Beta' },
      ]);
      writeModels(s.modelsDir, { 'marts/projects.sql': model('id, status') });
      await s.db.session.run("UPDATE raw.projects SET status = 'paused' WHERE id = 2");
      const r = await build(s);
      expect([strategy, r.byId('marts.projects').status]).toEqual([strategy, 'success']);
      // status is a new column; name, no longer returned, stays in the table
      expect(await s.db.session.all('SELECT id, status FROM marts.projects ORDER BY id')).toEqual([
        { id: 1, status: 'active' },
        { id: 2, status: 'paused' },
      ]);
      s.cleanup();
    }
  });
});

describe('incremental_by_unique_key: --full-refresh', () => {
  it('is audited before the swap: an error audit keeps the previous table', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'marts/projects.sql':
        '/* @model\nkind: incremental_by_unique_key\nunique_key: id\naudits:\n  - accepted_values: {column: status, values: [active]}\n*/\nselect id, status from raw.projects',
    });
    expect((await build(s)).byId('marts.projects').status).toBe('success');
    await s.db.session.run("UPDATE raw.projects SET status = 'gone' WHERE id = 2");
    const r = await build(s, { fullRefresh: true });
    expect(r.byId('marts.projects')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/previous one is kept/),
    });
    expect(await s.db.session.scalar("SELECT count(*) FROM marts.projects WHERE status = 'active'")).toBe(2);
    expect(await noTemp()).toBe(0);
  });
});

describe('scd2: history is never lost by accident', () => {
  const snapshot = '/* @model\nkind: scd2\nunique_key: id\n*/\nselect id, name, status from raw.projects';

  it('a failing snapshot changes nothing', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, { 'snapshots/projects.sql': snapshot });
    await build(s);
    writeModels(s.modelsDir, {
      'snapshots/projects.sql': snapshot.replace('name,', "cast(name || 'x' as integer) as name,"),
    });
    await s.db.session.run("UPDATE raw.projects SET status = 'paused'");
    expect((await build(s)).byId('snapshots.projects').status).toBe('error');
    expect(await s.db.session.scalar('SELECT count(*) FROM snapshots.projects WHERE valid_to IS NULL')).toBe(2);
    expect(await s.db.session.scalar("SELECT count(*) FROM snapshots.projects WHERE status = 'active'")).toBe(2);
  });

  it('refuses a query with two rows for one key, naming the key', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    await s.db.session.run(
      "INSERT INTO raw.projects VALUES (1, 'Alpha again', 'active', TIMESTAMP '2026-01-02 00:00:00')",
    );
    writeModels(s.modelsDir, { 'snapshots/projects.sql': snapshot });
    const r = await build(s);
    expect(r.byId('snapshots.projects')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/more than one row per unique_key \[id\], e\.g\. \(1\) x2/),
    });
  });

  it('adds a column the query starts returning, and tracks it from then on', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, { 'snapshots/projects.sql': snapshot });
    await build(s);
    writeModels(s.modelsDir, {
      'snapshots/projects.sql': snapshot.replace('status from', "status, 'eu' as region from"),
    });
    await s.clock.advance(DAY);
    const r = await build(s);
    expect(r.byId('snapshots.projects')).toMatchObject({ status: 'success' });
    expect(r.byId('snapshots.projects').message).toContain('new column(s) region added');
    // the new column differs from the NULL the old versions hold: each key gets a new version
    expect(await s.db.session.scalar('SELECT count(*) FROM snapshots.projects')).toBe(4);
    expect(
      await s.db.session.scalar("SELECT count(*) FROM snapshots.projects WHERE valid_to IS NULL AND region = 'eu'"),
    ).toBe(2);
  });

  it('a kind changed away from scd2 is refused and the history kept; a plain table in the way is not taken over', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, { 'snapshots/projects.sql': snapshot });
    await build(s);
    writeModels(s.modelsDir, {
      'snapshots/projects.sql': '/* @model\nkind: table\n*/\nselect id, name, status from raw.projects',
    });
    const r = await build(s, { fullRefresh: true });
    expect(r.byId('snapshots.projects')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/holds scd2 history.*DROP TABLE snapshots\.projects/),
    });
    expect(
      await s.db.session.scalar(
        "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'projects' AND column_name = 'valid_to'",
      ),
    ).toBe(1);

    writeModels(s.modelsDir, { 'snapshots/other.sql': snapshot, 'snapshots/projects.sql': snapshot });
    await s.db.session.run('CREATE TABLE snapshots.other AS SELECT 1 AS id');
    expect((await build(s)).byId('snapshots.other')).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/not an scd2 history/),
    });
    expect(await s.db.session.all('SELECT * FROM snapshots.other')).toEqual([{ id: 1 }]);
  });
});

describe('export: a failing export keeps the previous file', () => {
  it('the file and its view survive a failing query', async () => {
    s = await sandbox();
    await seedRaw(s.db, 2);
    const model = (sql: string) => `/* @model\nkind: export\npath: out/chats.parquet\n*/\n${sql}`;
    writeModels(s.modelsDir, { 'marts/chats_file.sql': model('select id, brand from raw.chats') });
    await build(s);
    const file = join(s.dir, 'out', 'chats.parquet');
    const before = readFileSync(file);
    writeModels(s.modelsDir, {
      'marts/chats_file.sql': model("select id, cast(brand || 'x' as integer) as b from raw.chats"),
    });
    expect((await build(s)).byId('marts.chats_file').status).toBe('error');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.chats_file')).toBe(8);
    expect(existsSync(join(s.dir, 'out'))).toBe(true);
  });
});

describe('fingerprints and the project folder', () => {
  it('changing an ephemeral model changes the fingerprint of the models it is pasted into', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'intermediate/e.sql': '/* @model\nkind: ephemeral\n*/\nselect 1 as id',
      'marts/m.sql': 'select id from intermediate.e',
      'marts/other.sql': 'select 2 as id',
    });
    const before = await loadProject(s.modelsDir);
    writeModels(s.modelsDir, { 'intermediate/e.sql': '/* @model\nkind: ephemeral\n*/\nselect 3 as id' });
    const after = await loadProject(s.modelsDir);
    expect(after.models.get('marts.m')?.fingerprint).not.toBe(before.models.get('marts.m')?.fingerprint);
    expect(after.models.get('marts.other')?.fingerprint).toBe(before.models.get('marts.other')?.fingerprint);
  });

  it('warns about .sql files the runner does not read', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'marts/m.sql': 'select 1 as id',
      'mart/typo.sql': 'select 1 as id',
      'loose.sql': 'select 1 as id',
      'tests/nested/t.sql': 'select 1 as id where false',
      'tests/unit/m.yaml': 'model: marts.m\nexpected: [{id: 1}]',
      'staging/e.sql': '/* @model\nkind: ephemeral\naudits:\n  - not_null: [id]\n*/\nselect 1 as id',
    });
    const project = await loadProject(s.modelsDir);
    expect(project.warnings.map((w) => w.split(' ')[0])).toEqual([
      'loose.sql',
      'mart/typo.sql',
      'tests/nested/t.sql',
      'staging/e.sql:',
    ]);
    expect(project.warnings[3]).toMatch(/its audits never run/);
    expect([...project.models.keys()].sort()).toEqual(['marts.m', 'staging.e']);
  });
});
