import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseModelHeader, splitFile } from '../../src/models/header.js';
import { addDay, build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

const incremental = (name: string) => `/* @model
kind: incremental_by_time_range
time_column: day
*/
select day, ${name} as what, count(*) as n from raw.chats where day between @start_date and @end_date group by all`;

describe('parallel builds', () => {
  it('several incremental models on separate connections keep separate bookkeeping', async () => {
    s = await sandbox();
    await seedRaw(s.db, 5);
    writeModels(s.modelsDir, {
      'marts/a.sql': incremental("'a'"),
      'marts/b.sql': incremental("'b'"),
      'marts/c.sql': incremental("'c'"),
      'intermediate/d.sql': incremental("'d'"),
      'marts/total.sql': '/* @model\nkind: table\n*/\nselect sum(n) as n from marts.a',
    });
    const first = await build(s, { threads: 4 });
    expect(first.results.map((r) => r.status)).toEqual(Array(5).fill('success'));
    await addDay(s.db, '2026-01-06');
    await s.clock.advance(86_400_000);
    const second = await build(s, { threads: 4 });
    for (const id of ['marts.a', 'marts.b', 'marts.c', 'intermediate.d'])
      expect(second.byId(id).intervals).toBe('2026-01-06');
    expect(
      await s.db.session.all('SELECT model, count(*) AS days FROM ops.model_intervals GROUP BY model ORDER BY model'),
    ).toEqual([
      { model: 'intermediate.d', days: 6 },
      { model: 'marts.a', days: 6 },
      { model: 'marts.b', days: 6 },
      { model: 'marts.c', days: 6 },
    ]);
    expect(await s.db.session.scalar('SELECT n FROM marts.total')).toBe(24);
  });
});

describe('export', () => {
  it('writes CSV when asked and replaces the file on the next build', async () => {
    s = await sandbox();
    await seedRaw(s.db, 2);
    writeModels(s.modelsDir, {
      'marts/chats_csv.sql':
        '/* @model\nkind: export\nformat: csv\npath: out/chats.csv\n*/\nselect id, brand from raw.chats order by id',
    });
    await build(s);
    const file = join(s.dir, 'out', 'chats.csv');
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('id,brand');
    await addDay(s.db, '2026-01-03');
    await build(s);
    expect(await s.db.session.scalar('SELECT count(*) FROM marts.chats_csv')).toBe(12);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });
});

describe('the README for analysts', () => {
  it('every example header parses', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const readme = readFileSync(join(here, '..', '..', 'dbt-like-models', 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    const models = blocks.filter((b) => b.startsWith('/* @model'));
    expect(models.length).toBeGreaterThanOrEqual(8);
    const kinds = new Set(models.map((b) => parseModelHeader(splitFile(b, 'model').header).kind));
    expect([...kinds].sort()).toEqual([
      'ephemeral',
      'export',
      'incremental_by_time_range',
      'incremental_by_unique_key',
      'scd2',
      'table',
      'view',
    ]);
  });
});
