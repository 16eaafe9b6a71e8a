import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { planProject } from '../../src/models/plan.js';
import { loadProject } from '../../src/models/project.js';
import { selectModels } from '../../src/models/selection.js';
import { addDay, build, fixturesDir, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

describe('selection', () => {
  const pick = async (select: string[], exclude: string[] = []) => {
    const project = await loadProject(join(fixturesDir, 'shop'));
    return [...selectModels(project, select, exclude, new Map())].sort();
  };

  it('name, schema.name, +name, name+, and a union', async () => {
    expect(await pick(['daily_visibility'])).toEqual(['marts.daily_visibility']);
    expect(await pick(['+marts.daily_visibility'])).toEqual([
      'intermediate.int_mentions',
      'marts.daily_visibility',
      'staging.stg_chats',
    ]);
    expect(await pick(['stg_chats+'])).toEqual([
      'intermediate.int_mentions',
      'marts.brand_totals',
      'marts.daily_visibility',
      'marts.visibility_export',
      'staging.stg_chats',
    ]);
    expect(await pick(['brand_totals projects_latest'])).toEqual(['marts.brand_totals', 'marts.projects_latest']);
  });

  it('tag:, path:, kind:, wildcards and --exclude', async () => {
    expect(await pick(['tag:daily'])).toEqual(['marts.daily_visibility']);
    expect(await pick(['path:snapshots/'])).toEqual(['snapshots.projects_history']);
    expect(await pick(['kind:scd2', 'kind:export'])).toEqual(['marts.visibility_export', 'snapshots.projects_history']);
    expect(await pick(['marts.*'], ['kind:export', 'tag:daily'])).toEqual([
      'marts.brand_totals',
      'marts.projects_latest',
    ]);
  });

  it('a selected model whose parent is neither selected nor in the warehouse fails naming it and the fix', async () => {
    s = await sandbox();
    await seedRaw(s.db, 2);
    writeModels(s.modelsDir, {
      'staging/stg.sql': '/* @model\nkind: view\n*/\nselect day, brand from raw.chats',
      'intermediate/eph.sql': '/* @model\nkind: ephemeral\n*/\nselect brand from staging.stg',
      'marts/direct.sql': 'select count(*) as n from staging.stg',
      'marts/through.sql': 'select count(*) as n from intermediate.eph',
    });
    const r = await build(s, { select: ['marts.direct', 'marts.through'] });
    for (const id of ['marts.direct', 'marts.through']) {
      expect(r.byId(id).status).toBe('error');
      expect(r.byId(id).message).toBe(
        `staging.stg is not in the warehouse yet and not selected: build it with this model (vwh models build --select +${id}) or build every model (vwh models build)`,
      );
    }
    // with its ancestors selected it builds; afterwards the parent is there and the model alone builds too
    expect((await build(s, { select: ['+marts.direct'] })).byId('marts.direct').status).toBe('success');
    expect((await build(s, { select: ['marts.through'] })).byId('marts.through').status).toBe('success');
  });

  it('a selector that matches nothing is a usage error', async () => {
    await expect(pick(['nosuch'])).rejects.toThrow(VwhError);
    await expect(pick(['colour:red'])).rejects.toThrow(/Unknown selector method/);
  });

  it('state:modified is what changed since the last build; a build selects only it', async () => {
    s = await sandbox('shop');
    await seedRaw(s.db);
    const first = await build(s, { select: ['state:modified'] });
    expect(first.results.filter((r) => r.type === 'model')).toHaveLength(7);
    writeModels(s.modelsDir, {
      'marts/brand_totals.sql':
        '/* @model\nkind: table\n*/\nselect brand, sum(mentions) as m from marts.daily_visibility group by brand',
      // a description is documentation: not a change
      'staging/stg_chats.sql':
        '/* @model\ndescription: new words\naudits:\n  - not_null: [chat_id, day]\n  - unique: [chat_id]\n*/\nselect id as chat_id, day, project_id, brand, mentioned, position from raw.chats',
    });
    const second = await build(s, { select: ['state:modified+'] });
    expect(second.results.map((r) => r.id)).toEqual(['marts.brand_totals']);
    // nothing changed since: nothing selected, not an error
    expect((await build(s, { select: ['state:modified'] })).results).toEqual([]);
  });
});

describe('plan', () => {
  it('lists new, modified and unchanged models and the missing days, without building', async () => {
    s = await sandbox('shop');
    await seedRaw(s.db, 5);
    const project = await loadProject(s.modelsDir);
    const before = await planProject(s.db, project, { clock: s.clock });
    // its first day comes from its upstream view, which does not exist before the first build
    expect(before.find((e) => e.id === 'marts.daily_visibility')).toMatchObject({ change: 'new', note: /first day/ });
    expect(await s.db.session.scalar("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'marts'")).toBe(0);
    await build(s);
    await addDay(s.db, '2026-01-06');
    await s.clock.advance(86_400_000);
    writeModels(s.modelsDir, { 'marts/projects_latest.sql': 'select id, name from raw.projects' });
    const after = await planProject(s.db, await loadProject(s.modelsDir), { clock: s.clock });
    expect(after.find((e) => e.id === 'marts.daily_visibility')).toMatchObject({
      change: 'unchanged',
      missing: [{ from: '2026-01-06', to: '2026-01-06' }],
    });
    expect(after.find((e) => e.id === 'marts.projects_latest')?.change).toBe('modified');
    expect(after.find((e) => e.id === 'marts.brand_totals')?.change).toBe('unchanged');
  });
});
