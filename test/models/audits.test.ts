import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/models/runner.js';
import { addDay, build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

const table = (sql: string, audits: string) => `/* @model\nkind: table\naudits:\n${audits}\n*/\n${sql}`;

describe('audits', () => {
  it('an error audit that fails blocks downstream models (skipped) and makes the run partial', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': table(
        'select id, brand, position from raw.chats',
        '  - accepted_values: {column: brand, values: [acme]}',
      ),
      'marts/per_brand.sql': 'select brand, count(*) as n from staging.chats group by brand',
      'marts/after.sql': 'select * from marts.per_brand',
      'marts/unrelated.sql': 'select 1 as x',
    });
    const r = await build(s);
    expect(r.byId('staging.chats').status).toBe('fail');
    expect(r.byId('staging.chats').audits[0]).toMatchObject({ status: 'fail', failures: 10 });
    expect(r.byId('marts.per_brand').status).toBe('skipped');
    expect(r.byId('marts.after').status).toBe('skipped');
    expect(r.byId('marts.unrelated').status).toBe('success');
    expect(exitCodeFor(r)).toBe(2);
  });

  it('a table is audited under its temporary name: a failing rebuild keeps the previous table', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'marts/brands.sql': table(
        'select distinct brand from raw.chats',
        '  - accepted_values: {column: brand, values: [acme, globex], store_failures: true}',
      ),
    });
    expect((await build(s)).byId('marts.brands').status).toBe('success');
    await s.db.session.run("UPDATE raw.chats SET brand = 'initech' WHERE id = 1");
    const r = await build(s);
    expect(r.byId('marts.brands')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/previous one is kept/),
    });
    expect(await s.db.session.all('SELECT brand FROM marts.brands ORDER BY brand')).toEqual([
      { brand: 'acme' },
      { brand: 'globex' },
    ]);
    expect(await s.db.session.all('SELECT brand FROM audit_failures.marts_brands__accepted_values__brand')).toEqual([
      { brand: 'initech' },
    ]);
    expect(await s.db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%__vwh_new'")).toBe(
      0,
    );
  });

  it('a warn audit reports and lets downstream models run; the run is not partial', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': table(
        'select id, brand, position from raw.chats',
        '  - accepted_values: {column: brand, values: [acme], severity: warn}',
      ),
      'marts/per_brand.sql': 'select brand, count(*) as n from staging.chats group by brand',
    });
    const r = await build(s);
    expect(r.byId('staging.chats').status).toBe('warn');
    expect(r.byId('marts.per_brand').status).toBe('success');
    expect(exitCodeFor(r)).toBe(0);
    // The run record says which audit warned and on how many rows (what vwh status prints beside the model).
    const message = await s.db.session.scalar(
      "SELECT message FROM ops.model_runs WHERE node = 'staging.chats' AND run_id = $1",
      [r.runId],
    );
    expect(message).toMatch(/^audits: accepted_values\S*:warn\(\d+\)$/);
  });

  it('thresholds tolerate some failing rows; failing rows can be stored', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': table(
        'select id, brand, position from raw.chats',
        [
          '  - expression: {sql: "position < 3", name: top_two, threshold: 10, store_failures: true}',
          '  - expression: {sql: "position < 2", name: top_one, threshold: 9}',
        ].join('\n'),
      ),
    });
    const r = await build(s);
    // positions per day are 1,2,3,1: 5 rows have position 3, 10 have position >= 2
    expect(r.byId('staging.chats').audits.map((a) => [a.name, a.status, a.failures])).toEqual([
      ['top_two', 'pass', 5],
      ['top_one', 'fail', 10],
    ]);
    expect(await s.db.session.scalar('SELECT count(*) FROM audit_failures.staging_chats__top_two')).toBe(5);
  });

  it('covers not_null, unique over a column set, relationships and number_of_rows', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/projects.sql': '/* @model\nkind: table\n*/\nselect id from raw.projects where id = 1',
      'marts/m.sql': table(
        'select day, brand, position, case when id = 1 then null else id end as maybe, 2 as project_id from raw.chats',
        [
          '  - not_null: [maybe]',
          '  - unique: [day, brand]',
          '  - unique: [day, brand, maybe]',
          '  - relationships: {column: project_id, to: staging.projects, field: id}',
          '  - number_of_rows: {min: 1, max: 5}',
        ].join('\n'),
      ),
    });
    const r = await build(s);
    expect(r.byId('marts.m').audits.map((a) => [a.name, a.status, a.failures])).toEqual([
      ['not_null__maybe', 'fail', 1],
      ['unique__day__brand', 'fail', 10],
      ['unique__day__brand__maybe', 'pass', 0],
      ['relationships__project_id', 'fail', 20],
      ['number_of_rows_5', 'fail', 1],
    ]);
  });

  it("a view's audits run its query once, together; an audit that does not bind fails alone", async () => {
    s = await sandbox();
    await seedRaw(s.db);
    // nextval() counts the rows the view's query produced for the audits reading `n`: 20 once, not 20 for each.
    await s.db.session.run('CREATE SEQUENCE raw.rows_read');
    writeModels(s.modelsDir, {
      'staging/numbered.sql': [
        '/* @model\nkind: view\naudits:',
        '  - not_null: [brand, n]',
        '  - unique: [day, brand]',
        '  - expression: {sql: "position < 3 and n > 0", name: top_two, severity: warn}',
        '*/',
        "select id, day, brand, position, nextval('raw.rows_read') as n from raw.chats",
      ].join('\n'),
    });
    const r = await build(s);
    expect(r.byId('staging.numbered').audits.map((a) => [a.name, a.status, a.failures])).toEqual([
      ['not_null__brand__n', 'pass', 0],
      ['unique__day__brand', 'fail', 10],
      ['top_two', 'warn', 5],
    ]);
    expect(await s.db.session.scalar("SELECT nextval('raw.rows_read') - 1")).toBe(20);

    writeModels(s.modelsDir, {
      'staging/numbered.sql': [
        '/* @model\nkind: view\naudits:',
        '  - not_null: [brand]',
        '  - expression: {sql: "no_such_column > 0", name: broken}',
        '  - unique: [day, brand]',
        '*/',
        'select id, day, brand, position from raw.chats',
      ].join('\n'),
    });
    const again = (await build(s)).byId('staging.numbered');
    expect(again.audits.map((a) => [a.name, a.status, a.failures])).toEqual([
      ['not_null__brand', 'pass', 0],
      ['broken', 'error', 0],
      ['unique__day__brand', 'fail', 10],
    ]);
    expect(again.audits[1]?.message).toMatch(/no_such_column/);
  });

  it('on an incremental model, audits check only the interval just processed', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5);
    await s.db.session.run("UPDATE raw.chats SET brand = NULL WHERE day = DATE '2026-01-01' AND id % 4 = 0");
    writeModels(s.modelsDir, {
      'marts/daily.sql': `/* @model
kind: incremental_by_time_range
time_column: day
audits:
  - not_null: [brand]
*/
select day, brand, count(*) as n from raw.chats where day between @start_date and @end_date group by all`,
    });
    expect((await build(s)).byId('marts.daily').status).toBe('fail');
    await addDay(s.db, '2026-01-06');
    await s.clock.advance(86_400_000);
    expect((await build(s)).byId('marts.daily').status).toBe('success');
    // `vwh models test` audits the whole table and still sees the old bad day
    expect((await build(s, { command: 'test' })).byId('marts.daily').status).toBe('fail');
  });

  it('a failing singular test makes the run partial; a skipped parent skips it', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': 'select * from raw.chats',
      'tests/no_globex.sql': "select * from staging.chats where brand = 'globex'",
      'tests/warn_only.sql': "/* @test\nseverity: warn\n*/\nselect * from staging.chats where brand = 'acme'",
    });
    const r = await build(s);
    expect(r.byId('test.no_globex')).toMatchObject({ status: 'fail', message: '10 failing row(s)' });
    expect(r.byId('test.warn_only').status).toBe('warn');
    expect(exitCodeFor(r)).toBe(2);
    writeModels(s.modelsDir, { 'staging/chats.sql': 'select nosuch from raw.chats' });
    expect((await build(s)).byId('test.no_globex').status).toBe('skipped');
  });

  it('a singular test selected through one parent is skipped, not failed, while another parent was never built', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': 'select * from raw.chats',
      'marts/brands.sql': 'select distinct brand from raw.chats',
      'tests/brands_have_chats.sql':
        'select b.brand from marts.brands b left join staging.chats c using (brand) where c.brand is null',
    });
    const partial = await build(s, { select: ['staging.chats'] });
    expect(partial.byId('test.brands_have_chats')).toMatchObject({
      status: 'skipped',
      message: expect.stringMatching(/marts\.brands is not in the warehouse yet/),
    });
    expect(exitCodeFor(partial)).toBe(0);
    const full = await build(s);
    expect(full.byId('test.brands_have_chats')).toMatchObject({ status: 'success', message: '0 failing row(s)' });
  });

  it('test on a model never built says so instead of failing each audit', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': table('select id from raw.chats', '  - not_null: [id]\n  - unique: [id]'),
    });
    const r = await build(s, { command: 'test' });
    expect(r.byId('staging.chats')).toMatchObject({
      status: 'error',
      audits: [],
      message: expect.stringMatching(/staging\.chats is not in the warehouse yet; build it first/),
    });
    await build(s, { command: 'run' });
    expect((await build(s, { command: 'test' })).byId('staging.chats').status).toBe('success');
  });

  it('run builds without auditing', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats.sql': table(
        'select id, brand from raw.chats',
        '  - accepted_values: {column: brand, values: [x]}',
      ),
    });
    const r = await build(s, { command: 'run' });
    expect(r.byId('staging.chats')).toMatchObject({ status: 'success', audits: [] });
  });
});
