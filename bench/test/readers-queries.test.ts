/**
 * The readers bench's questions (bench/readers-queries.ts: the seven reports, the HTML report's queries and the
 * dashboard queries) give the same answers on the published copy and on the Parquet lake read as DuckDB views over
 * read_parquet with Hive partitioning, on a small world of another seed and shape than the demo's, across a full
 * calendar quarter so that the quarter questions have rows.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportParquetLake } from '../../src/export/index.js';
import { publishWarehouse } from '../../src/ops/publish.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { MODELS_DIR } from '../../test/analytics/support.js';
import { buildExportWorld, type ExportWorld } from '../../test/export/support.js';
import { lakeViewsSql, type Question, readerQueries } from '../readers-queries.js';

let world: ExportWorld;
let published: Database;
let lake: Database;
let questions: Question[];
beforeAll(async () => {
  // 2026-06-23 .. 2026-11-19: the last full quarter before the newest day is July to September
  world = await buildExportWorld({ seed: 23, projects: 3, prompts: 4, historyDays: 150, today: '2026-11-20' });
  const copy = await publishWarehouse(world.db, join(world.dir, 'published', 'warehouse.duckdb'));
  const lakeDir = join(world.dir, 'lake');
  published = await Database.open(copy.path, { access_mode: 'READ_ONLY' });
  const marts = await published.session.all<{ t: string }>(
    "select 'marts.' || table_name as t from duckdb_tables() where schema_name = 'marts'",
  );
  await exportParquetLake({
    db: world.db,
    outDir: lakeDir,
    staging: true,
    tables: [...marts.map((m) => m.t), 'staging.projects'],
  });
  lake = await Database.open(':memory:');
  for (const statement of lakeViewsSql(lakeDir, MODELS_DIR)) await lake.session.run(statement);
  questions = await published.session.all<Question>(
    `select project_id as project, strftime(max(date), '%Y-%m-%d') as "lastDay"
     from marts.brand_visibility_daily group by project_id order by project_id`,
  );
}, 300_000);
afterAll(() => {
  published?.close();
  lake?.close();
  world?.cleanup();
});

/** A row as comparable text: instants as ISO (the lake writes TIMESTAMP as TIMESTAMPTZ), numbers to 12 digits. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

async function answer(db: Database, sql: string, params: Record<string, unknown>): Promise<unknown[][]> {
  const reader = await db.connection.runAndReadAll(sql, params as never);
  return reader.getRowsJS().map((row) => row.map(plain));
}

describe('the readers’ questions on the published copy and on the lake', () => {
  it('the world has three projects and a full quarter', () => {
    expect(questions).toHaveLength(3);
    expect(questions.every((q) => q.lastDay === '2026-11-19')).toBe(true);
  });

  for (const query of readerQueries()) {
    it(`${query.name} answers the same on both`, async () => {
      const asked = query.scope === 'project' ? questions : [{ project: null, lastDay: '2026-11-19' }];
      for (const q of asked) {
        const params = query.params(q);
        const fromCopy = await answer(published, query.sql, params);
        const fromLake = await answer(lake, query.sql, params);
        expect(fromLake, `${query.name} for ${q.project ?? 'every project'}`).toEqual(fromCopy);
        // the dashboards ask about days the world has: an empty answer on both sides would prove nothing
        if (query.kind === 'dashboard') expect(fromCopy.length).toBeGreaterThan(0);
      }
    });
  }
});
