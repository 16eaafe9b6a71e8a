import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/models/project.js';
import { runUnitTests } from '../../src/models/unit-tests.js';
import { fixturesDir, type Sandbox, sandbox, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

describe('unit tests on fixtures', () => {
  it('the fixture project passes, with an ephemeral parent inlined from the given rows', async () => {
    const results = await runUnitTests(await loadProject(join(fixturesDir, 'shop')));
    expect(results).toEqual([
      {
        name: 'daily_visibility',
        path: 'tests/unit/daily_visibility.yaml',
        model: 'marts.daily_visibility',
        status: 'pass',
      },
    ]);
  });

  it('reports missing and unexpected rows, a missing input, and works from JSON with typed empty inputs', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/a.sql': 'select id, v * 2 as v2 from raw.a',
      'marts/b.sql': 'select a.id, a.v2, r.label from staging.a as a left join raw.labels as r using (id)',
      'tests/unit/wrong.yaml': `model: staging.a
inputs:
  raw.a: [{id: 1, v: 1.5}, {id: 2, v: 2}]
expected: [{id: 1, v2: 3}, {id: 2, v2: 5}]`,
      'tests/unit/missing.yaml': 'model: marts.b\ninputs:\n  staging.a: [{id: 1, v2: 1}]\nexpected: []',
      'tests/unit/typed.json': JSON.stringify({
        model: 'marts.b',
        inputs: {
          'staging.a': [{ id: 1, v2: 4 }],
          'raw.labels': { columns: { id: 'INTEGER', label: 'VARCHAR' }, rows: [] },
        },
        expected: [{ id: 1, v2: 4, label: null }],
      }),
    });
    const results = await runUnitTests(await loadProject(s.modelsDir));
    const byName = Object.fromEntries(results.map((r) => [r.name, r]));
    expect(byName.wrong?.status).toBe('fail');
    expect(byName.wrong?.message).toContain('expected but missing: ["2","5"]');
    expect(byName.wrong?.message).toContain('returned but not expected: ["2","4"]');
    expect(byName.missing).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/give input rows for raw\.labels/),
    });
    expect(byName.typed?.status).toBe('pass');
  });

  it('a model that fails on its fixtures names its file and line', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/bad.sql': '/* @model\n*/\nselect\n  nosuch\nfrom raw.a',
      'unit_tests/nested/bad.json': JSON.stringify({
        model: 'staging.bad',
        inputs: { 'raw.a': [{ id: 1 }] },
        expected: [],
      }),
    });
    const [result] = await runUnitTests(await loadProject(s.modelsDir));
    expect(result).toMatchObject({ name: 'bad', path: 'unit_tests/nested/bad.json', status: 'error' });
    expect(result?.message).toMatch(/^staging\/bad\.sql: Binder Error.*nosuch.*LINE 4 of the file/s);
  });

  it('asks only for the tables the SQL reads, not the target of a relationships audit', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'staging/brands.sql': 'select distinct brand from raw.chats',
      'marts/per_brand.sql':
        '/* @model\nkind: table\naudits:\n  - relationships: {column: brand, to: staging.brands, field: brand}\n*/\n' +
        'select brand, count(*) as n from raw.chats group by brand',
      'tests/unit/per_brand.yaml': `model: marts.per_brand
inputs:
  raw.chats: [{brand: acme}, {brand: acme}, {brand: globex}]
expected: [{brand: acme, n: 2}, {brand: globex, n: 1}]`,
    });
    const project = await loadProject(s.modelsDir);
    // the audit still orders the build: staging.brands is built first
    expect(project.models.get('marts.per_brand')?.parents).toEqual(['staging.brands']);
    expect(await runUnitTests(project)).toMatchObject([{ name: 'per_brand', status: 'pass' }]);
  });
});
