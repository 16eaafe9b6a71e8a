/**
 * catalog.json (buildCatalog) against DESCRIBE and count(*) of each model: the catalogue is read for the whole
 * project at once, and must say what each relation's own DESCRIBE says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/models/artifacts/catalog.js';
import { loadProject } from '../../src/models/project.js';
import { build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

describe('the catalogue', () => {
  it("gives each model's columns (names, types, nullability, in order) and rows as DESCRIBE and count(*) do", async () => {
    s = await sandbox();
    await seedRaw(s.db);
    writeModels(s.modelsDir, {
      'staging/chats_view.sql':
        '/* @model\ncolumns:\n  brand: who\n*/\nselect id, day, brand, position::DECIMAL(9, 3) as position, [brand] as names from raw.chats',
      'marts/per_day.sql': [
        '/* @model\nkind: incremental_by_time_range\ntime_column: day\n*/',
        "select day, count(*) as n, {'first': min(id), 'tz': TIMESTAMPTZ '2026-01-01 00:00:00+00'} as extra",
        'from staging.chats_view where day between @start_date and @end_date group by day',
      ].join('\n'),
      'marts/Mixed_Case.sql': '/* @model\nkind: table\n*/\nselect 1 as "Upper", null::VARCHAR as maybe',
      'marts/eph.sql': '/* @model\nkind: ephemeral\n*/\nselect 1 as x',
    });
    // A table outside the project in a model schema is not in the catalogue.
    await s.db.session.run('CREATE SCHEMA IF NOT EXISTS marts; CREATE TABLE marts.not_a_model AS SELECT 1 AS x');
    expect((await build(s)).results.every((r) => r.status === 'success')).toBe(true);

    // A NOT NULL column (a model's table as a migration may have constrained it).
    await s.db.session.run('ALTER TABLE marts."Mixed_Case" ALTER COLUMN "Upper" SET NOT NULL');
    const catalog = await buildCatalog(s.db.session, await loadProject(s.modelsDir));
    expect(Object.keys(catalog).sort()).toEqual(['marts.Mixed_Case', 'marts.per_day', 'staging.chats_view']);
    for (const entry of Object.values(catalog)) {
      const [schema, name] = entry.relation.split('.');
      const rel = `"${schema}"."${name}"`;
      const described = await s.db.session.all<{ column_name: string; column_type: string; null: string }>(
        `DESCRIBE ${rel}`,
      );
      expect(
        entry.columns.map(({ name, type, nullable }) => ({ name, type, nullable })),
        entry.relation,
      ).toEqual(described.map((c) => ({ name: c.column_name, type: c.column_type, nullable: c.null !== 'NO' })));
      expect(entry.rows).toBe(
        entry.type === 'table' ? Number(await s.db.session.scalar(`SELECT count(*) FROM ${rel}`)) : null,
      );
    }
    expect(catalog['staging.chats_view']?.type).toBe('view');
    expect(catalog['staging.chats_view']?.columns.find((c) => c.name === 'brand')?.description).toBe('who');
    expect(catalog['marts.per_day']?.rows).toBe(5);
    expect(catalog['marts.Mixed_Case']?.columns.map((c) => c.nullable)).toEqual([false, true]);
  });
});
