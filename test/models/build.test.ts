import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

describe('build of the fixture project', () => {
  it('builds every kind in DAG order and audits each model', async () => {
    s = await sandbox('shop');
    await seedRaw(s.db);
    const r = await build(s);
    for (const result of r.results) expect([result.id, result.status]).toEqual([result.id, 'success']);
    expect(r.byId('intermediate.int_mentions').message).toBe('inlined');
    // 5 days x 2 brands
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.daily_visibility')).toBe(10);
    const kinds = await s.db.session.all(
      "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema IN ('staging','intermediate','marts','snapshots') ORDER BY 1",
    );
    expect(kinds).toEqual([
      { table_name: 'brand_totals', table_type: 'BASE TABLE' },
      { table_name: 'daily_visibility', table_type: 'BASE TABLE' },
      { table_name: 'projects_history', table_type: 'BASE TABLE' },
      { table_name: 'projects_latest', table_type: 'BASE TABLE' },
      { table_name: 'stg_chats', table_type: 'VIEW' },
      { table_name: 'visibility_export', table_type: 'VIEW' },
    ]);
    // the export kind wrote zstd Parquet next to the warehouse and a view reads it
    const file = join(s.dir, 'exports', 'visibility.parquet');
    expect(existsSync(file)).toBe(true);
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.visibility_export')).toBe(10);
    const codec = await s.db.session.scalar(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
    expect(codec).toBe('ZSTD');
    expect(r.byId('test.no_future_days').status).toBe('success');
    const runs = await s.db.session.scalar('SELECT count(*) FROM ops.model_runs WHERE run_id = $1', [r.runId]);
    expect(runs).toBe(r.results.length);
  });

  it('writes one progress line per model on a terminal', async () => {
    s = await sandbox('shop');
    await seedRaw(s.db);
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const r = await build(s, { logger: createLogger({ format: 'human', stream }) });
    expect(lines).toHaveLength(r.results.length);
    expect(lines.find((l) => l.includes('marts.daily_visibility'))).toMatch(
      /^SUCCESS marts\.daily_visibility {2}kind=incremental_by_time_range rows=10 intervals=2026-01-01\.\.2026-01-05 ms=\d+/,
    );
  });

  it('builds the same with several models at once (threads)', async () => {
    s = await sandbox('shop');
    await seedRaw(s.db);
    const r = await build(s, { threads: 4 });
    expect(r.results.filter((x) => x.status !== 'success')).toEqual([]);
    expect(await s.db.session.scalar('SELECT sum(mentions) FROM marts.brand_totals')).toBe(15);
  });
});

describe('swap on failure', () => {
  it('a failing table model names its file, keeps the previous table, leaves no temp table, skips children', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'marts/totals.sql': '/* @model\nkind: table\n*/\nselect brand, count(*) as n from raw.chats group by brand',
      'marts/after.sql': '/* @model\nkind: table\n*/\nselect * from marts.totals',
    });
    expect((await build(s)).results.every((x) => x.status === 'success')).toBe(true);
    writeModels(s.modelsDir, {
      'marts/totals.sql':
        "/* @model\nkind: table\n*/\nselect brand,\n  cast('x' || brand as integer) as n\nfrom raw.chats",
    });
    const r = await build(s);
    expect(r.byId('marts.totals').status).toBe('error');
    expect(r.byId('marts.totals').message).toMatch(/^marts\/totals\.sql: Conversion Error/);
    expect(r.byId('marts.after').status).toBe('skipped');
    expect(await s.db.session.all('SELECT brand, n FROM marts.totals ORDER BY brand')).toEqual([
      { brand: 'acme', n: 10 },
      { brand: 'globex', n: 10 },
    ]);
    expect(await s.db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%__vwh_new'")).toBe(
      0,
    );
  });

  it('a binder error gives the line in the file', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'marts/bad.sql': '/* @model\nkind: table\n*/\nselect\n  brand,\n  nosuch\nfrom raw.chats',
    });
    const r = await build(s);
    expect(r.byId('marts.bad').message).toMatch(/marts\/bad\.sql: Binder Error.*nosuch.*LINE 6 of the file/s);
  });

  it('an error inside an inlined ephemeral model names that file and its line', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'intermediate/e1.sql': '/* @model\nkind: ephemeral\n*/\nselect id, brand from raw.chats',
      'intermediate/e2.sql': '/* @model\nkind: ephemeral\n*/\nselect\n  id,\n  nosuch\nfrom intermediate.e1',
      'marts/m.sql': '/* @model\nkind: table\n*/\nselect id\nfrom intermediate.e2\nwhere id > 0',
    });
    const message = (await build(s)).byId('marts.m').message;
    expect(message).toMatch(
      /^marts\/m\.sql: in the ephemeral model intermediate\/e2\.sql pasted into it: Binder Error/,
    );
    expect(message).toContain('LINE 6 of intermediate/e2.sql:');
    // and an error in the model's own SQL below the inlined CTEs still points into its own file
    writeModels(s.modelsDir, {
      'intermediate/e2.sql': '/* @model\nkind: ephemeral\n*/\nselect\n  id\nfrom intermediate.e1',
      'marts/m.sql': '/* @model\nkind: table\n*/\nselect id\nfrom intermediate.e2\nwhere nosuch > 0',
    });
    expect((await build(s)).byId('marts.m').message).toMatch(/^marts\/m\.sql: Binder Error.*LINE 6 of the file:/s);
  });

  it('a view that no longer binds keeps the previous view', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id from raw.chats' });
    await build(s);
    writeModels(s.modelsDir, { 'staging/v.sql': 'select nosuch from raw.chats' });
    expect((await build(s)).byId('staging.v').status).toBe('error');
    expect(await s.db.session.scalar('SELECT count(*) FROM staging.v')).toBe(20);
  });

  it('a model can change kind (view to table and back)', async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id from raw.chats' });
    await build(s);
    writeModels(s.modelsDir, { 'staging/v.sql': '/* @model\nkind: table\n*/\nselect id from raw.chats' });
    await build(s);
    expect(await s.db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'v'")).toBe(1);
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id from raw.chats' });
    await build(s);
    expect(await s.db.session.scalar("SELECT count(*) FROM duckdb_views() WHERE view_name = 'v'")).toBe(1);
  });
});
