import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { compileModel } from '../../src/models/compile.js';
import { DependencyReader } from '../../src/models/dependencies.js';
import { loadProject } from '../../src/models/project.js';
import { fixturesDir, type Sandbox, sandbox, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

describe('dependencies from the SQL', () => {
  it('finds model edges and sources in the fixture project, and a topological order', async () => {
    const project = await loadProject(join(fixturesDir, 'shop'));
    const daily = project.models.get('marts.daily_visibility');
    expect(daily?.parents).toEqual(['intermediate.int_mentions', 'staging.stg_chats']);
    expect(project.models.get('staging.stg_chats')?.sources).toEqual(['raw.chats']);
    // the relationships audit makes projects_history a parent of projects_latest
    expect(project.models.get('marts.projects_latest')?.parents).toEqual(['snapshots.projects_history']);
    const order = project.graph.order;
    expect(order.indexOf('staging.stg_chats')).toBeLessThan(order.indexOf('marts.daily_visibility'));
    expect(order.indexOf('marts.daily_visibility')).toBeLessThan(order.indexOf('marts.brand_totals'));
    expect(project.tests.map((t) => t.id)).toEqual(['test.no_future_days']);
  });

  it('parses a file again only when its SQL changed (a process that loads the project every night)', async () => {
    s = await sandbox();
    // texts no other test of this process parses
    const tag = `x_${Date.now()}`;
    writeModels(s.modelsDir, {
      'staging/a.sql': `select 1 as ${tag}`,
      'staging/b.sql': `select 2 as ${tag}`,
      'marts/c.sql': `select ${tag} from staging.a`,
    });
    const before = DependencyReader.parses;
    expect((await loadProject(s.modelsDir)).models.get('marts.c')?.parents).toEqual(['staging.a']);
    expect(DependencyReader.parses - before).toBe(3);
    expect((await loadProject(s.modelsDir)).models.get('marts.c')?.parents).toEqual(['staging.a']);
    expect(DependencyReader.parses - before).toBe(3);
    writeModels(s.modelsDir, { 'marts/c.sql': `select ${tag} from staging.b` });
    const project = await loadProject(s.modelsDir);
    expect(project.models.get('marts.c')?.parents).toEqual(['staging.b']);
    expect(project.models.get('marts.c')?.parentColumns.get('staging.b')).toEqual(new Set([tag]));
    expect(DependencyReader.parses - before).toBe(4);
  });

  it('a reader closed while its parses run lets them finish (a load that failed on one file closes it early)', async () => {
    const reader = await DependencyReader.create();
    const tag = `y_${Date.now()}`;
    const reads = Array.from({ length: 30 }, (_, i) => reader.read(`select ${i} as ${tag} from raw.t${i}`));
    reader.close();
    const refs = await Promise.all(reads);
    expect(refs.map((r) => r.map((ref) => `${ref.schema}.${ref.name}`))).toEqual(
      Array.from({ length: 30 }, (_, i) => [`raw.t${i}`]),
    );
  });

  it('sees tables behind a JOIN ... USING, in subqueries and CTEs, but not the CTE names', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/a.sql': 'select 1 as id',
      'staging/b.sql': 'select 1 as id',
      'marts/c.sql': `with x as (select * from staging.a) select * from x join staging.b using (id)
        where id in (select id from raw.things)`,
    });
    const project = await loadProject(s.modelsDir);
    expect(project.models.get('marts.c')?.parents).toEqual(['staging.a', 'staging.b']);
    expect(project.models.get('marts.c')?.sources).toEqual(['raw.things']);
  });

  it('knows which columns of each parent a model reads, counting every column when it cannot tell', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/p.sql': 'select 1 as id, 2 as team_id, 3 as content, 4 as figure, 5 as _extracted_at',
      'staging/q.sql': 'select 1 as id, 2 as v',
      'staging/chats.sql': `with chats as (
          select * from raw.chats qualify row_number() over (partition by id order by _extracted_at desc) = 1
        )
        select chats.id, p.content, chats.team_id from chats
        left join staging.p as p on p.team_id = chats.team_id and p.id = chats.prompt_id
        where exists (select 1 from staging.q where v = chats.v)`,
      'marts/star.sql': 'select * from staging.p',
      'marts/alias_star.sql': 'select x.*, q.v from staging.p as x join staging.q as q using (id)',
      'marts/whole_row.sql': 'select to_json(p) as j from staging.p as p',
    });
    const project = await loadProject(s.modelsDir);
    const read = (id: string, parent: string) => {
      const c = project.models.get(id)?.parentColumns.get(parent);
      return c === '*'
        ? '*'
        : [...(c ?? [])].filter((x) => ['id', 'team_id', 'content', 'figure', '_extracted_at', 'v'].includes(x)).sort();
    };
    // the unqualified _extracted_at of the CTE over raw.chats is not p's; the v of the subquery may be p's (an outer
    // column) as far as the parser can tell, so it counts
    expect(read('staging.chats', 'staging.p')).toEqual(['content', 'id', 'team_id', 'v']);
    expect(read('staging.chats', 'staging.q')).toEqual(['v']);
    expect(read('marts.star', 'staging.p')).toBe('*');
    expect(read('marts.alias_star', 'staging.p')).toBe('*');
    expect(read('marts.alias_star', 'staging.q')).toEqual(['id', 'v']);
    expect(read('marts.whole_row', 'staging.p')).toBe('*');
  });

  it('a cycle is an error naming each model and file', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/a.sql': 'select * from marts.c',
      'intermediate/b.sql': 'select * from staging.a',
      'marts/c.sql': 'select * from intermediate.b',
    });
    const error = await loadProject(s.modelsDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VwhError);
    expect((error as VwhError).code).toBe('MODEL_GRAPH');
    expect((error as VwhError).message).toMatch(/cycle/);
    expect((error as VwhError).message).toContain('staging/a.sql');
    expect((error as VwhError).message).toContain('marts/c.sql');
  });

  it('an unknown table names the file and the table, and suggests the model', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, { 'staging/a.sql': 'select 1 as x', 'marts/m.sql': 'select * from a' });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/marts\/m\.sql: reads table a.*did you mean staging\.a/);
    writeModels(s.modelsDir, { 'marts/m.sql': 'select * from ops.sync_runs' });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/marts\/m\.sql: reads table ops\.sync_runs/);
    writeModels(s.modelsDir, {
      'marts/m.sql': '/* @model\ndepends_on: ops.sync_runs\n*/\nselect * from ops.sync_runs',
    });
    expect((await loadProject(s.modelsDir)).models.get('marts.m')?.sources).toEqual(['ops.sync_runs']);
  });

  it('a syntax error names the file and the line in the file', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, { 'marts/m.sql': '/* @model\nkind: table\n*/\nselect 1\nfrom raw.x\nwhere )' });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/marts\/m\.sql: .*LINE 6 of the file/s);
  });

  it('one SELECT per file', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, { 'marts/m.sql': 'select 1; select 2' });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/exactly one SELECT/);
  });

  it('inlines ephemeral parents as CTEs, transitively', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/e1.sql': '/* @model\nkind: ephemeral\n*/\nselect 1 as id',
      'intermediate/e2.sql': '/* @model\nkind: ephemeral\n*/\nselect id + 1 as id from staging.e1',
      'marts/m.sql': 'select id from intermediate.e2',
    });
    const project = await loadProject(s.modelsDir);
    const model = project.models.get('marts.m');
    const compiled = compileModel(project, model as NonNullable<typeof model>);
    expect(compiled.sql).toContain('__eph_staging__e1 AS');
    expect(compiled.sql).toContain('from __eph_intermediate__e2');
    expect(await s.db.session.all(compiled.sql)).toEqual([{ id: 2 }]);
  });
});
