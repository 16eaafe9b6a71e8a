import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ExitCode } from '../../src/core/errors.js';
import { loadProject, shippedModelsDir } from '../../src/models/project.js';
import { selectModels } from '../../src/models/selection.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => {
  vi.restoreAllMocks();
  s?.cleanup();
});

/** Runs `vwh models ...` in-process; returns the exit code and what went to stdout. */
async function vwh(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  const code = await main(['node', 'vwh', 'models', ...args]);
  vi.restoreAllMocks();
  return { code, out, err };
}

/** The CLI opens the warehouse itself, so the sandbox's connection is closed first. */
async function prepared(fixture?: string): Promise<Sandbox> {
  const box = await sandbox(fixture);
  await seedRaw(box.db);
  box.db.close();
  return box;
}

describe('vwh models', () => {
  it('build writes manifest and run results, logs JSON lines per model with --log-format json, exits 0', async () => {
    s = await prepared('shop');
    const target = join(s.dir, 'target');
    const r = await vwh(
      'build',
      '--db',
      s.dbPath,
      '--models-dir',
      s.modelsDir,
      '--target-dir',
      target,
      '--end',
      '2026-01-05',
      '--log-format',
      'json',
    );
    expect(r.code).toBe(0);
    // in JSON mode stdout is JSON too: the closing tally as an event
    const done = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .at(-1);
    expect(done).toMatchObject({ msg: 'models build done', pass: 8, warn: 0, error: 0, skip: 0, total: 8 });
    const lines = r.err
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { node: string; status: string });
    expect(lines.map((l) => l.node)).toContain('marts.daily_visibility');
    const manifest = JSON.parse(readFileSync(join(target, 'manifest.json'), 'utf8'));
    expect(manifest.parent_map['marts.brand_totals']).toEqual(['marts.daily_visibility']);
    expect(manifest.child_map['staging.stg_chats']).toEqual(['intermediate.int_mentions', 'marts.daily_visibility']);
    const results = JSON.parse(readFileSync(join(target, 'run_results.json'), 'utf8'));
    expect(results.results.find((x: { unique_id: string }) => x.unique_id === 'marts.daily_visibility')).toMatchObject({
      status: 'success',
      rows_affected: 10,
      intervals: '2026-01-01..2026-01-05',
    });
  });

  it('exits 2 when an error audit fails, naming the model', async () => {
    s = await prepared();
    writeModels(s.modelsDir, {
      'staging/c.sql':
        '/* @model\nkind: table\naudits:\n  - accepted_values: {column: brand, values: [acme]}\n*/\nselect brand from raw.chats',
    });
    const r = await vwh('build', '--db', s.dbPath, '--models-dir', s.modelsDir, '--target-dir', join(s.dir, 't'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/staging\.c \(fail\).*\[AUDIT_FAILED\]/);
  });

  it('test prints one PASS/WARN/FAIL line per audit by name and ends with the PASS= WARN= ERROR= SKIP= tally', async () => {
    s = await prepared();
    writeModels(s.modelsDir, {
      'staging/c.sql':
        '/* @model\nkind: table\ntags: [daily]\naudits:\n  - not_null: {columns: [brand]}\n  - accepted_values: {column: brand, values: [acme], severity: warn}\n*/\nselect brand from raw.chats',
      'staging/d.sql': '/* @model\nkind: view\n*/\nselect 1 as x',
    });
    const common = ['--db', s.dbPath, '--models-dir', s.modelsDir, '--target-dir', join(s.dir, 't')];
    expect((await vwh('build', ...common, '--log-format', 'human')).code).toBe(0);
    const r = await vwh('test', ...common, '--log-format', 'human');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines).toContain('PASS  not_null__brand on staging.c');
    expect(lines.find((l) => l.startsWith('WARN  accepted_values'))).toMatch(/ on staging\.c {2}\d+ failing row\(s\)$/);
    expect(lines.at(-1)).toBe('Done. PASS=1 WARN=1 ERROR=0 SKIP=0 TOTAL=2');
    // list is ls, and a tag selects
    const list = await vwh('list', ...common, '-s', 'tag:daily', '--log-format', 'human');
    expect(list.code).toBe(0);
    expect(list.out).toContain('staging.c');
    expect(list.out).not.toContain('staging.d');
  });

  it('exits with its own outcome, not with an exit code an earlier call in the process left', async () => {
    s = await prepared('shop');
    // An earlier in-process call (a command that ended partial) left its code, as the suite's shared workers do.
    process.exitCode = ExitCode.partial;
    try {
      const r = await vwh('ls', '--models-dir', s.modelsDir);
      expect(r.code).toBe(ExitCode.ok);
      expect(r.out).toContain('marts.daily_visibility');
    } finally {
      process.exitCode = undefined;
    }
  });

  it("the help's example tag:daily selects the shipped daily marts", async () => {
    const project = await loadProject(shippedModelsDir());
    const daily = selectModels(project, ['tag:daily'], [], new Map());
    expect([...daily]).toEqual(expect.arrayContaining(['marts.brand_visibility_daily', 'marts.share_of_voice_daily']));
  });

  it('exits 1 with MODEL_GRAPH on a cycle, 64 on a bad --end', async () => {
    s = await prepared();
    writeModels(s.modelsDir, {
      'staging/a.sql': 'select * from staging.b',
      'staging/b.sql': 'select * from staging.a',
    });
    const cycle = await vwh('ls', '--models-dir', s.modelsDir);
    expect(cycle.code).toBe(1);
    expect(cycle.err).toMatch(/cycle.*\[MODEL_GRAPH\]/);
    const bad = await vwh('build', '--models-dir', s.modelsDir, '--end', 'yesterday');
    expect(bad.code).toBe(64);
  });

  it('ls, plan, docs and test --unit', async () => {
    s = await prepared('shop');
    const base = ['--db', s.dbPath, '--models-dir', s.modelsDir];
    const ls = await vwh('ls', '--models-dir', s.modelsDir, '--select', 'tag:daily+');
    expect(
      ls.out
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual(['marts.daily_visibility', 'marts.brand_totals', 'marts.visibility_export']);
    const plan = await vwh('plan', ...base, '--json', '--select', 'snapshots.projects_history');
    expect(JSON.parse(plan.out)).toEqual([{ id: 'snapshots.projects_history', kind: 'scd2', change: 'new' }]);
    const target = join(s.dir, 'docs');
    const built = await vwh('build', ...base, '--target-dir', target, '--end', '2026-01-05');
    expect(built.err).not.toContain('"error"');
    expect(built.code).toBe(0);
    const docs = await vwh('docs', ...base, '--target-dir', target);
    expect(docs.code).toBe(0);
    const dictionary = readFileSync(join(target, 'data_dictionary.md'), 'utf8');
    expect(dictionary).toContain('### marts.daily_visibility');
    expect(dictionary).toContain('| mentions | BIGINT | Answers that mention the brand. |');
    const html = readFileSync(join(target, 'index.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('raw.chats');
    const catalog = JSON.parse(readFileSync(join(target, 'catalog.json'), 'utf8'));
    expect(catalog['marts.daily_visibility'].rows).toBe(10);
    const unit = await vwh('test', '--unit', '--models-dir', s.modelsDir);
    expect(unit.code).toBe(0);
    expect(unit.out).toContain('unit tests: 1 passed, 0 failed');
    // the run results landed in the warehouse too
    const db = await Database.open(s.dbPath);
    try {
      expect(
        Number(await db.session.scalar("SELECT count(*) FROM ops.model_runs WHERE status = 'success'")),
      ).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    expect(existsSync(join(target, 'run_results.json'))).toBe(true);
  });

  it('every command has --help and takes --db (default data/warehouse.duckdb)', async () => {
    for (const command of ['build', 'run', 'test', 'plan', 'ls', 'docs']) {
      const help = await vwh(command, '--help');
      expect([command, help.code]).toEqual([command, 0]);
      expect(help.out.replace(/\s+/g, ' ')).toContain(
        '--db <file> the warehouse file (default: "data/warehouse.duckdb")',
      );
    }
    const top = await vwh('--help');
    expect(top.out).toContain('state:modified');
  });

  it('ls -s state:modified lists exactly the models build -s state:modified then builds', async () => {
    s = await prepared('shop');
    const base = ['--db', s.dbPath, '--models-dir', s.modelsDir];
    const target = join(s.dir, 'target');
    const build = (...args: string[]) => vwh('build', ...base, '--end', '2026-01-05', '--target-dir', target, ...args);
    expect((await build()).code).toBe(0);
    writeModels(s.modelsDir, {
      'marts/brand_totals.sql':
        '/* @model\nkind: table\n*/\nselect brand, sum(mentions) as m from marts.daily_visibility group by brand',
      'marts/projects_latest.sql': 'select id, name from raw.projects',
    });
    for (const selector of ['state:modified', 'state:modified+']) {
      const ls = await vwh('ls', ...base, '-s', selector, '--json');
      expect(ls.code).toBe(0);
      const listed = (JSON.parse(ls.out) as { id: string }[]).map((r) => r.id).sort();
      expect(listed).toEqual(['marts.brand_totals', 'marts.projects_latest']);
      // build first, so the second selector sees the first build's state: both must then list nothing
      expect((await build('-s', selector)).code).toBe(0);
      const results = JSON.parse(readFileSync(join(target, 'run_results.json'), 'utf8')) as {
        results: { unique_id: string }[];
      };
      expect(results.results.map((r) => r.unique_id).sort()).toEqual(listed);
      // after that build nothing is modified, for ls as for build
      expect(JSON.parse((await vwh('ls', ...base, '-s', 'state:modified', '--json')).out)).toEqual([]);
      writeModels(s.modelsDir, {
        'marts/brand_totals.sql':
          '/* @model\nkind: table\n*/\nselect brand, sum(mentions) as total from marts.daily_visibility group by brand',
        'marts/projects_latest.sql': 'select id, name, 1 as v from raw.projects',
      });
    }
  });

  it('plan, ls and docs only read: no warehouse file is created, an existing one is opened read-only', async () => {
    s = await prepared();
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id from raw.chats' });
    const missing = join(s.dir, 'none', 'w.duckdb');
    const plan = await vwh('plan', '--db', missing, '--models-dir', s.modelsDir, '--json');
    expect(JSON.parse(plan.out)).toEqual([{ id: 'staging.v', kind: 'view', change: 'new' }]);
    const ls = await vwh('ls', '--db', missing, '--models-dir', s.modelsDir, '--select', 'state:new');
    expect(ls.out).toContain('staging.v');
    expect(existsSync(join(s.dir, 'none', 'w.duckdb'))).toBe(false);
    // a read-only open leaves no ops tables behind in a warehouse that had none
    expect((await vwh('plan', '--db', s.dbPath, '--models-dir', s.modelsDir)).code).toBe(0);
    const db = await Database.open(s.dbPath);
    try {
      expect(await db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'ops'")).toBe(0);
    } finally {
      db.close();
    }
  });

  it('artifacts go to target/ beside the warehouse unless --target-dir says otherwise', async () => {
    s = await prepared();
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id from raw.chats', 'stray.sql': 'select 1' });
    const r = await vwh('build', '--db', s.dbPath, '--models-dir', s.modelsDir);
    expect(r.code).toBe(0);
    expect(existsSync(join(s.dir, 'target', 'run_results.json'))).toBe(true);
    expect(existsSync(join(s.dir, 'target', 'manifest.json'))).toBe(true);
    // the stray file is named on stderr
    expect(r.err).toContain('stray.sql is not read');
    const docs = await vwh('docs', '--db', s.dbPath, '--models-dir', s.modelsDir);
    expect(docs.code).toBe(0);
    expect(existsSync(join(s.dir, 'target', 'index.html'))).toBe(true);
  });

  it('plan --start previews a backfill and names upstream changes; test --unit reads unit_tests/ too', async () => {
    s = await prepared();
    const daily = `/* @model
kind: incremental_by_time_range
time_column: day
*/
select day, count(*) as n from staging.v where day between @start_date and @end_date group by all`;
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id, day from raw.chats', 'marts/daily.sql': daily });
    const base = ['--db', s.dbPath, '--models-dir', s.modelsDir];
    expect((await vwh('build', ...base, '--end', '2026-01-05')).code).toBe(0);
    writeModels(s.modelsDir, { 'staging/v.sql': 'select id, day, 1 as one from raw.chats' });
    const plan = await vwh('plan', ...base, '--json', '--start', '2026-01-04', '--end', '2026-01-05');
    expect(JSON.parse(plan.out)).toEqual([
      { id: 'staging.v', kind: 'view', change: 'modified' },
      {
        id: 'marts.daily',
        kind: 'incremental_by_time_range',
        change: 'unchanged',
        missing: [['2026-01-04', '2026-01-05']],
        upstreamChanged: ['staging.v'],
      },
    ]);
    const text = await vwh('plan', ...base, '--end', '2026-01-05');
    expect(text.out).toMatch(
      /unchanged +marts\.daily +\[incremental_by_time_range\] +missing: none +upstream changed: staging\.v/,
    );
    writeModels(s.modelsDir, {
      'unit_tests/daily.yaml': `model: marts.daily
inputs:
  staging.v: [{id: 1, day: 2026-01-01}, {id: 2, day: 2026-01-01}]
expected: [{day: 2026-01-01, n: 2}]`,
    });
    const unit = await vwh('test', '--unit', '--models-dir', s.modelsDir);
    expect(unit.out).toContain('PASS  daily (marts.daily)');
    expect(unit.code).toBe(0);
  });
});
