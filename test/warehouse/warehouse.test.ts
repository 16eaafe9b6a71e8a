import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/warehouse/migrate.js';
import { Session } from '../../src/warehouse/session.js';
import { Warehouse, type WarehouseSession } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../fixtures.js';

let dir: string;
let wh: Warehouse;
let ws: WarehouseSession;

beforeEach(async () => {
  dir = tempDir('vwh-wh-').dir;
  wh = await Warehouse.open(join(dir, 'w.duckdb'));
  ws = await wh.session();
});
afterEach(() => {
  ws.close();
  wh.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('applies every numbered file once and records it; a re-run applies nothing', async () => {
    const versions = readMigrations().map((m) => m.version);
    const recorded = await ws.session.all<{ version: number }>('SELECT version FROM ops.schema_migrations ORDER BY 1');
    expect(recorded.map((r) => r.version)).toEqual(versions);
    expect(await migrate(ws.session)).toEqual([]);
    const tables = await ws.session.all<{ n: number }>(
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'raw'",
    );
    expect(tables[0]?.n).toBeGreaterThanOrEqual(20);
  });

  it('gives every raw table team_id, _extra, _sync_run_id and _extracted_at', async () => {
    const missing = await ws.session.all(`
      SELECT t.table_name, c.column_name FROM information_schema.tables t
      CROSS JOIN (VALUES ('team_id'), ('_extra'), ('_sync_run_id'), ('_extracted_at')) c(column_name)
      WHERE t.table_schema = 'raw' AND NOT EXISTS (
        SELECT 1 FROM information_schema.columns k
        WHERE k.table_schema = 'raw' AND k.table_name = t.table_name AND k.column_name = c.column_name)`);
    expect(missing).toEqual([]);
  });

  it('says each raw table grain in the catalog, and which window a window table aggregates over', async () => {
    const tables = await ws.session.all<{ table_name: string; comment: string | null; windowed: boolean }>(`
      SELECT t.table_name, t.comment,
        EXISTS (SELECT 1 FROM duckdb_columns() c WHERE c.schema_name = 'raw' AND c.table_name = t.table_name
                AND c.column_name = 'window_from') AS windowed
      FROM duckdb_tables() t WHERE t.schema_name = 'raw' ORDER BY 1`);
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['chats', 'content_tasks', 'articles', 'team_members']),
    );
    for (const t of tables) {
      expect(t.comment, t.table_name).toMatch(/Grain: /);
      if (t.windowed) expect(t.comment, t.table_name).toMatch(/window_from\.\.window_to/);
    }
  });
});

describe('kysely dialect', () => {
  it('writes and reads ops tables with typed values, inside and outside transactions', async () => {
    await ws.runs.start('r1', 'team-a', 'http://x', { streams: ['chats'] });
    await ws.session.transaction(async () => {
      await ws.runs.reject({
        runId: 'r1',
        teamId: 'team-a',
        stream: 'chats',
        parentId: 'p1',
        unitKey: 'chats:p1:2026-01-01..2026-01-02',
        endpoint: 'prompt.chats',
        payload: { a: 1 },
        issues: [{ path: ['a'], message: 'bad' }],
      });
    });
    await ws.runs.finish('r1', 'team-a', 'partial', {
      unitsPlanned: 3,
      unitsDone: 3,
      requests: 5,
      throttled429: 1,
      retries: 2,
      rowsPerStream: { chats: 10 },
      rejectedRows: 1,
    });
    const run = await ws.ops.selectFrom('ops.sync_runs').selectAll().executeTakeFirstOrThrow();
    expect(run.status).toBe('partial');
    expect(run.requests).toBe(5);
    expect(run.ended_at).toBeInstanceOf(Date);
    expect(JSON.parse(run.rows_per_stream ?? '{}')).toEqual({ chats: 10 });
    const rejected = await ws.ops.selectFrom('ops.rejected_rows').selectAll().execute();
    expect(rejected).toHaveLength(1);
    expect(JSON.parse(rejected[0]?.payload ?? 'null')).toEqual({ a: 1 });
  });

  it('rolls back kysely writes when the transaction throws', async () => {
    await expect(
      ws.session.transaction(async () => {
        await ws.runs.start('r2', 'team-a', 'http://x', {});
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await ws.ops.selectFrom('ops.sync_runs').selectAll().execute()).toEqual([]);
  });

  it('runs two concurrent kysely transactions one after the other, never interleaved', async () => {
    const events: string[] = [];
    const row = (key: string) => ({ key_id: key, timestamps: '[]', updated_at: new Date(0) });
    const slow = ws.ops.transaction().execute(async (trx) => {
      events.push('a:first');
      await trx.insertInto('ops.rate_budget').values(row('a1')).execute();
      // Let the other transaction run if the connection were not held.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      await trx.insertInto('ops.rate_budget').values(row('a2')).execute();
      events.push('a:last');
      throw new Error('a rolls back');
    });
    const other = ws.ops.transaction().execute(async (trx) => {
      events.push('b:first');
      await trx.insertInto('ops.rate_budget').values(row('b1')).execute();
      events.push('b:last');
    });
    await expect(slow).rejects.toThrow('a rolls back');
    await other;
    expect(events).toEqual(['a:first', 'a:last', 'b:first', 'b:last']);
    const keys = await ws.ops.selectFrom('ops.rate_budget').select('key_id').execute();
    expect(keys.map((k) => k.key_id)).toEqual(['b1']);
  });

  it('introspects the ops and raw tables', async () => {
    const tables = await ws.ops.introspection.getTables();
    const names = tables.map((t) => `${t.schema}.${t.name}`);
    expect(names).toContain('ops.sync_state');
    expect(names).toContain('raw.chats');
    const state = tables.find((t) => t.name === 'sync_state');
    expect(state?.columns.map((c) => c.name)).toContain('range_from');
  });
});

describe('budget store', () => {
  it('persists timestamps per key id and replaces them on save', async () => {
    expect(await ws.budget.load('k1')).toEqual([]);
    await ws.budget.save('k1', [1, 2, 3]);
    await ws.budget.save('k1', [2, 3, 4]);
    await ws.budget.save('k2', [9]);
    expect(await ws.budget.load('k1')).toEqual([2, 3, 4]);
    expect(await ws.budget.load('k2')).toEqual([9]);
  });
});

describe('state store', () => {
  it('keeps finished ranges merged per parent', async () => {
    const key = { teamId: 't', stream: 'chats', parentId: 'p1' };
    await ws.state.markFinished(key, { from: '2026-01-01', to: '2026-01-05' }, 'r1', '2026-01-13');
    await ws.state.markFinished(key, { from: '2026-01-10', to: '2026-01-12' }, 'r1', '2026-01-13');
    await ws.state.markFinished(key, { from: '2026-01-06', to: '2026-01-09' }, 'r2', '2026-02-02');
    await ws.state.markFinished(
      { ...key, parentId: 'p2' },
      { from: '2026-02-01', to: '2026-02-01' },
      'r2',
      '2026-02-02',
    );
    expect(await ws.state.finished(key)).toEqual([{ from: '2026-01-01', to: '2026-01-12' }]);
    const all = await ws.state.finishedByParent('t', 'chats');
    expect(all.get('p2')).toEqual([{ from: '2026-02-01', to: '2026-02-01' }]);
  });
});

describe('sessions', () => {
  it('serializes concurrent statements on one connection', async () => {
    const session = await Session.create(await wh.database.connect());
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => session.all<{ v: number }>(`SELECT ${i} AS v`)),
    );
    expect(results.map((r) => r[0]?.v)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    session.close();
  });
});
