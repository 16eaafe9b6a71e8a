import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableLoad } from '../../src/warehouse/load-types.js';
import { BATCH_ROWS, Loader } from '../../src/warehouse/loader.js';
import { memoryBytes } from '../../src/warehouse/wal-checkpoint.js';
import { Warehouse, type WarehouseSession } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../fixtures.js';

let dir: string;
let wh: Warehouse;
let ws: WarehouseSession;
const run = { team_id: 'team-a', _sync_run_id: 'run-1', _extracted_at: new Date('2026-01-10T00:00:00Z') };

beforeEach(async () => {
  dir = tempDir('vwh-loader-').dir;
  wh = await Warehouse.open(join(dir, 'w.duckdb'));
  ws = await wh.session();
});
afterEach(() => {
  ws.close();
  wh.close();
  rmSync(dir, { recursive: true, force: true });
});

function chat(id: string, day: string, extra: Record<string, unknown> = {}) {
  return {
    project_id: 'p1',
    prompt_id: 'q1',
    id,
    date: `${day}T10:00:00+02:00`,
    chat_date: day,
    mentioned: true,
    position: 2,
    chat_preview: 'Hello.',
    platform: 'chatgpt',
    model: 'gpt',
    full_content: 'Hello. World',
    prompt_content: 'q',
    sentiment: null,
    brands_mentioned_is_null: false,
    sentiment_by_brands_is_null: true,
    _extra: Object.keys(extra).length ? extra : null,
  };
}

const partition = (from: string, to: string) => ({
  equals: { project_id: 'p1', prompt_id: 'q1' },
  between: { column: 'chat_date', from, to },
});

describe('Loader', () => {
  it('lands typed rows with the run columns, converting timestamps to UTC', async () => {
    await ws.loader.loadUnit(
      [
        {
          table: 'raw.chats',
          partition: partition('2026-01-01', '2026-01-02'),
          rows: [chat('c1', '2026-01-01', { x: 1 })],
        },
      ],
      run,
    );
    const rows = await ws.session.all(
      "SELECT team_id, id, strftime(date, '%Y-%m-%dT%H:%M:%S') AS ts, position, _extra, _sync_run_id FROM raw.chats",
    );
    expect(rows).toEqual([
      { team_id: 'team-a', id: 'c1', ts: '2026-01-01T08:00:00', position: 2, _extra: '{"x":1}', _sync_run_id: 'run-1' },
    ]);
  });

  it('replaces the partition: re-loading the same days never doubles, other days stay', async () => {
    const load = (rows: ReturnType<typeof chat>[], from: string, to: string) =>
      ws.loader.loadUnit([{ table: 'raw.chats', partition: partition(from, to), rows }], run);
    await load(
      [chat('c1', '2026-01-01'), chat('c2', '2026-01-02'), chat('c3', '2026-01-03')],
      '2026-01-01',
      '2026-01-03',
    );
    await load(
      [chat('c2', '2026-01-02'), chat('c3', '2026-01-03'), chat('c4', '2026-01-03')],
      '2026-01-02',
      '2026-01-03',
    );
    await load([chat('c3', '2026-01-03'), chat('c4', '2026-01-03')], '2026-01-03', '2026-01-03');
    const ids = await ws.session.all<{ id: string }>('SELECT id FROM raw.chats ORDER BY id');
    expect(ids.map((r) => r.id)).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('keeps other teams untouched when replacing a partition', async () => {
    await ws.loader.loadUnit(
      [{ table: 'raw.chats', partition: partition('2026-01-01', '2026-01-01'), rows: [chat('a', '2026-01-01')] }],
      run,
    );
    await ws.loader.loadUnit(
      [{ table: 'raw.chats', partition: partition('2026-01-01', '2026-01-01'), rows: [chat('b', '2026-01-01')] }],
      { ...run, team_id: 'team-b' },
    );
    expect(await ws.session.all('SELECT team_id, id FROM raw.chats ORDER BY 1')).toEqual([
      { team_id: 'team-a', id: 'a' },
      { team_id: 'team-b', id: 'b' },
    ]);
  });

  it('commits rows and state together, or neither', async () => {
    const key = { teamId: 'team-a', stream: 'chats', parentId: 'q1' };
    await expect(
      ws.loader.loadUnit(
        [{ table: 'raw.chats', partition: partition('2026-01-01', '2026-01-01'), rows: [chat('c1', '2026-01-01')] }],
        run,
        async () => {
          await ws.state.markFinished(key, { from: '2026-01-01', to: '2026-01-01' }, 'run-1', '2026-01-02');
          throw new Error('killed between rows and state');
        },
      ),
    ).rejects.toThrow(/killed/);
    expect(await ws.session.all('SELECT * FROM raw.chats')).toEqual([]);
    expect(await ws.state.finished(key)).toEqual([]);
    await ws.loader.loadUnit(
      [{ table: 'raw.chats', partition: partition('2026-01-01', '2026-01-01'), rows: [chat('c1', '2026-01-01')] }],
      run,
      () => ws.state.markFinished(key, { from: '2026-01-01', to: '2026-01-01' }, 'run-1', '2026-01-02'),
    );
    expect(await ws.state.finished(key)).toEqual([{ from: '2026-01-01', to: '2026-01-01' }]);
  });

  it('lands lists, JSON and more rows than one data chunk', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      project_id: 'p1',
      id: `a${i}`,
      priority: 'high',
      title: 't',
      category: 'new_content',
      status: 'suggested',
      targets: [{ type: 'url', value: `https://x/${i}` }],
      depends_on: ['x', 'y'],
      group: i % 2 ? 'g' : null,
      created_at: '2026-01-01T00:00:00Z',
    }));
    await ws.loader.loadUnit([{ table: 'raw.actions', partition: { equals: { project_id: 'p1' } }, rows }], run);
    const summary = await ws.session.all(
      'SELECT count(*) AS n, count("group") AS g, max(len(depends_on)) AS deps, max(targets->>\'$[0].type\') AS t FROM raw.actions',
    );
    expect(summary).toEqual([{ n: 5000, g: 2500, deps: 2, t: 'url' }]);
  });

  it('lands timestamps and lists as the SQL casts from their text give them (offsets, precision, JSON lists)', async () => {
    // The appender writes TIMESTAMP and VARCHAR[] columns in their own types; what lands must be what
    // CAST(CAST(text AS TIMESTAMPTZ) AS TIMESTAMP) and CAST(CAST(json AS JSON) AS VARCHAR[]) give in a UTC session.
    const stamps = [
      '2026-01-01T10:00:00+02:00',
      '2026-01-01T10:00:00-05:30',
      '2026-01-01T10:00:00+0530',
      '2026-01-01T23:30:00-01',
      '2026-01-01T10:00:00Z',
      '2026-01-01T10:00:00.1234567Z',
      '2026-01-01T10:00:00.5',
      '2026-01-01T10:00',
      '2026-01-01 10:00:00',
      '2026-01-01',
      '1969-12-31T23:59:59.999999Z',
    ];
    const lists: unknown[] = [
      ['a', 'b,c', 'say "hi"', 'é 👋', '[x]'],
      [],
      null,
      [null, 'x'],
      [1, 2.5, true, { a: [1] }],
    ];
    const rows = stamps.map((date, i) => ({ ...chat(`c${String(i).padStart(2, '0')}`, '2026-01-01'), date }));
    const mentions = lists.map((icon_urls, i) => ({
      project_id: 'p1',
      prompt_id: 'q1',
      chat_id: 'c00',
      chat_date: '2026-01-01',
      brand_name: `b${i}`,
      in_all_mentions: true,
      icon_url: null,
      icon_urls,
      in_brands_mentioned: false,
    }));
    await ws.loader.loadUnit(
      [
        { table: 'raw.chats', rows },
        { table: 'raw.chat_mentions', rows: mentions },
      ],
      run,
    );
    const landed = await ws.session.all<{ date: string }>('SELECT date::VARCHAR AS date FROM raw.chats ORDER BY id');
    const cast = await Promise.all(
      stamps.map((s) => ws.session.scalar('SELECT CAST(CAST($1 AS TIMESTAMPTZ) AS TIMESTAMP)::VARCHAR', [s])),
    );
    expect(landed.map((r) => r.date)).toEqual(cast);
    expect(cast[0]).toBe('2026-01-01 08:00:00');
    const landedLists = await ws.session.all<{ l: unknown }>(
      'SELECT icon_urls AS l FROM raw.chat_mentions ORDER BY brand_name',
    );
    const castLists = await Promise.all(
      lists.map((l) =>
        ws.session.scalar('SELECT CAST(CAST($1 AS JSON) AS VARCHAR[])', [l === null ? null : JSON.stringify(l)]),
      ),
    );
    expect(landedLists.map((r) => r.l)).toEqual(castLists);
  });

  it('lands dates as the SQL cast from their text gives them (leap days, centuries, the first years)', async () => {
    // The appender writes DATE columns as days since 1970 computed in JavaScript, not as text it casts.
    const days = [
      '2026-01-01',
      '1970-01-01',
      '1969-12-31',
      '2000-02-29',
      '2024-02-29',
      '2100-02-28',
      '2100-03-01',
      '1600-02-29',
      '1900-03-01',
      '0001-01-01',
      '0000-03-01',
      '9999-12-31',
    ];
    const rows = days.map((day, i) => chat(`c${String(i).padStart(2, '0')}`, day));
    await ws.loader.loadUnit([{ table: 'raw.chats', rows }], run);
    const landed = await ws.session.all<{ d: string }>('SELECT chat_date::VARCHAR AS d FROM raw.chats ORDER BY id');
    const cast = await Promise.all(days.map((d) => ws.session.scalar('SELECT CAST($1 AS DATE)::VARCHAR', [d])));
    expect(landed.map((r) => r.d)).toEqual(cast);
    expect(cast[4]).toBe('2024-02-29');
  });

  it('rejects a date that is not a YYYY-MM-DD day, naming the column, and lands nothing of the unit', async () => {
    for (const day of ['2025-02-29', '2026-01-01T00:00:00Z', 'today']) {
      const bad = [chat('c1', '2026-01-01'), { ...chat('c2', '2026-01-02'), chat_date: day }];
      await expect(ws.loader.loadUnit([{ table: 'raw.chats', rows: bad }], run)).rejects.toThrow(
        `raw.chats.chat_date: ${JSON.stringify(day)} is not a date (YYYY-MM-DD)`,
      );
    }
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(0);
  });

  it('lands a column that holds one text in a whole chunk, and one that changes within a chunk, value for value', async () => {
    // A text the same in every row of a chunk is written as one constant vector: across units, chunks and batches
    // (a chunk holds 2 048 rows), the column must still hold each row's own text.
    const units = [
      Array.from({ length: 3000 }, (_, i) => ({
        ...chat(`a${String(i).padStart(4, '0')}`, '2026-01-01'),
        model: 'm1',
      })),
      Array.from({ length: 2100 }, (_, i) => ({
        ...chat(`b${String(i).padStart(4, '0')}`, '2026-01-02'),
        prompt_id: 'q2',
        model: i === 2099 ? 'm3' : 'm2',
      })),
      [{ ...chat('c0000', '2026-01-03'), prompt_id: 'q3', model: 'm4' }],
    ];
    await Promise.all(units.map((rows) => ws.loader.loadUnit([{ table: 'raw.chats', rows }], run)));
    const got = await ws.session.all<{ id: string; prompt_id: string; model: string; team_id: string; r: string }>(
      'SELECT id, prompt_id, model, team_id, _sync_run_id AS r FROM raw.chats ORDER BY id',
    );
    expect(got).toEqual(
      units.flat().map((r) => ({ id: r.id, prompt_id: r.prompt_id, model: r.model, team_id: 'team-a', r: 'run-1' })),
    );
  });

  it('rejects a timestamp that is not ISO 8601, naming the column, and lands nothing of the unit', async () => {
    const bad = [chat('c1', '2026-01-01'), { ...chat('c2', '2026-01-02'), date: 'yesterday' }];
    await expect(ws.loader.loadUnit([{ table: 'raw.chats', rows: bad }], run)).rejects.toThrow(
      /raw\.chats\.date: "yesterday" is not an ISO 8601 timestamp/,
    );
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(0);
  });

  it('finds a table created after its schema was read, in its own column order, and names a table that does not exist', async () => {
    // The first load reads raw's columns once; raw.late is created after it, its columns in an order of their own.
    await ws.loader.loadUnit([{ table: 'raw.chats', rows: [chat('c1', '2026-01-01')] }], run);
    await ws.session.run(
      'CREATE TABLE raw.late (n DOUBLE, label VARCHAR, team_id VARCHAR, _sync_run_id VARCHAR, _extracted_at TIMESTAMP)',
    );
    await ws.loader.loadUnit([{ table: 'raw.late', rows: [{ label: 'x', n: 2 }] }], run);
    expect(await ws.session.all('SELECT n, label, team_id FROM raw.late')).toEqual([
      { n: 2, label: 'x', team_id: 'team-a' },
    ]);
    await expect(ws.loader.loadUnit([{ table: 'raw.nowhere', rows: [{ n: 1 }] }], run)).rejects.toThrow(
      /raw\.nowhere.*does not exist/,
    );
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(1);
  });

  it('lands every value and every NULL where it was, in each wire type, across data chunks of one unit', async () => {
    // NULLs at a chunk's first and last rows, at a validity word's edges and in the next chunks; non-ASCII text.
    const nullAt = new Set([0, 7, 8, 63, 64, 2047, 2048, 2049, 4095, 4096, 4999]);
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      ...chat(`c${String(i).padStart(4, '0')}`, '2026-01-01'),
      position: nullAt.has(i) ? null : i,
      sentiment: nullAt.has(i + 1) ? null : i * 3,
      mentioned: i % 3 === 0,
      chat_preview: `Grüße ${i} 👋`,
      _extra: i % 5 || nullAt.has(i) ? null : { i },
    }));
    await ws.loader.loadUnit([{ table: 'raw.chats', partition: partition('2026-01-01', '2026-01-01'), rows }], run);
    const got = await ws.session.all<Record<string, unknown>>(
      'SELECT position, sentiment, mentioned, chat_preview, _extra::VARCHAR AS extra, team_id FROM raw.chats ORDER BY id',
    );
    expect(got).toEqual(
      rows.map((r) => ({
        position: r.position,
        sentiment: r.sentiment,
        mentioned: r.mentioned,
        chat_preview: r.chat_preview,
        extra: r._extra ? JSON.stringify(r._extra) : null,
        team_id: 'team-a',
      })),
    );
  });

  it('holds no staged rows between batches: no temporary table stays, so the memory does not grow', async () => {
    // DuckDB keeps a temp table's deleted rows in memory until the table is dropped: staging tables emptied and
    // refilled per batch grew with the history of a backfill.
    const inMemory = async () =>
      Number(
        await ws.session.scalar(
          "SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'",
        ),
      );
    const body = 'x'.repeat(2000);
    for (let batch = 0; batch < 20; batch++) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        ...chat(`c${batch}-${i}`, '2026-01-01'),
        full_content: `${body}${batch}-${i}`,
      }));
      await ws.loader.loadUnit([{ table: 'raw.chats', rows }], run);
    }
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(20_000);
    expect(await ws.session.scalar('SELECT count(*) FROM duckdb_tables() WHERE temporary')).toBe(0);
    // 20 batches of 2 MB staged; the landed rows are checkpointed to the file, so what stays is not theirs.
    await ws.session.run('CHECKPOINT');
    expect(await inMemory()).toBeLessThan(8e6);
  });

  it('bounds a transaction by its rows: units queued while one lands commit in transactions of at most that many', async () => {
    const perUnit = 1000;
    const units = 3 * (BATCH_ROWS / perUnit) + 1;
    // Batches of BATCH_ROWS, two to a transaction.
    const loader = new Loader(ws.session, 0, { rows: 2 * BATCH_ROWS, ms: 60_000 });
    const transactions: number[] = [];
    let inTransaction = 0;
    loader.setBatchWork({
      begin: () => {
        inTransaction = 0;
      },
      end: async () => {
        transactions.push(inTransaction);
      },
    });
    await Promise.all(
      Array.from({ length: units }, (_, u) =>
        loader.loadUnit(
          [
            {
              table: 'raw.chats',
              rows: Array.from({ length: perUnit }, (_, i) => chat(`c${u}-${i}`, '2026-01-01')),
            },
          ],
          run,
          async (counts) => {
            inTransaction += counts['raw.chats'] ?? 0;
          },
        ),
      ),
    );
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(units * perUnit);
    expect(transactions.reduce((a, b) => a + b, 0)).toBe(units * perUnit);
    // Batches of at most BATCH_ROWS, as many to a transaction as its rows allow.
    expect(transactions).toEqual([2 * BATCH_ROWS, BATCH_ROWS + perUnit]);
  });

  it('checkpoints between transactions once the WAL passes its limit, when DuckDB does not checkpoint by itself', async () => {
    // DuckDB checkpoints at a commit past checkpoint_threshold only when it takes the checkpoint lock alone; in a sync
    // the rate budget's saves held it. A threshold it never reaches stands for that here.
    await ws.session.run("SET checkpoint_threshold = '10GB'");
    const walFile = `${wh.path}.wal`;
    const wal = () => (existsSync(walFile) ? statSync(walFile).size : 0);
    const big = 'x'.repeat(2000);
    const unit = (u: number): TableLoad[] => [
      {
        table: 'raw.chats',
        rows: Array.from({ length: 1000 }, (_, i) => ({ ...chat(`u${u}-${i}`, '2026-01-01'), full_content: big })),
      },
    ];
    const sizes = async (loader: Loader, from: number): Promise<number[]> => {
      const seen: number[] = [];
      // One unit at a time, each its own transaction: the check after a transaction has run when the next lands.
      for (let u = from; u < from + 8; u++) {
        await loader.loadUnit(unit(u), run);
        seen.push(wal());
      }
      return seen;
    };
    const plain = await sizes(new Loader(ws.session, 0, { rows: 1000, ms: 60_000 }), 0);
    const perUnit = plain[0] as number;
    expect(perUnit).toBeGreaterThan(1_000_000);
    // Without the loader's checkpoint the WAL holds every unit.
    expect(plain.at(-1)).toBeGreaterThan(7 * perUnit);
    await ws.session.run('CHECKPOINT');
    const limit = 2 * perUnit;
    const memoryLimit = async () =>
      memoryBytes(String(await ws.session.scalar("SELECT current_setting('memory_limit')")));
    const before = await memoryLimit();
    // The statements the loader runs, seen on their way to the real session.
    const statements: string[] = [];
    const runStatement = ws.session.run.bind(ws.session);
    ws.session.run = (sql, params) => {
      statements.push(sql);
      return runStatement(sql, params);
    };
    const bounded = await sizes(
      new Loader(ws.session, 0, { rows: 1000, ms: 60_000 }, { file: walFile, limitBytes: limit }),
      100,
    );
    // Past the limit, the next transaction's check checkpoints: never more than the limit and two units' WAL.
    expect(Math.max(...bounded)).toBeLessThanOrEqual(limit + 2 * perUnit);
    expect(bounded.some((size, i) => i > 0 && size < (bounded[i - 1] as number))).toBe(true);
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(16 * 1000);
    // Each checkpoint ran under half the memory limit, and the limit was set back after it.
    const checkpoints = statements.flatMap((sql, i) => (sql === 'CHECKPOINT' ? [i] : []));
    expect(checkpoints.length).toBeGreaterThan(0);
    for (const at of checkpoints) {
      const lowered = /^SET memory_limit = '(.+)'$/.exec(statements[at - 1] ?? '')?.[1];
      // (DuckDB shows the limit to a tenth of a MiB.)
      expect(Math.abs((memoryBytes(lowered ?? '') ?? 0) - (before as number) / 2)).toBeLessThanOrEqual(0.1 * 2 ** 20);
      expect(statements[at + 1]).toMatch(/^SET memory_limit = /);
    }
    expect(Math.abs(((await memoryLimit()) ?? 0) - (before as number))).toBeLessThanOrEqual(0.1 * 2 ** 20);
  });

  it('reads memory sizes as DuckDB writes them', () => {
    expect(memoryBytes('244.1 MiB')).toBeCloseTo(244.1 * 2 ** 20);
    expect(memoryBytes('1.8 GiB')).toBeCloseTo(1.8 * 2 ** 30);
    expect(memoryBytes('512 bytes')).toBe(512);
    expect(memoryBytes('125000 KiB')).toBe(125_000 * 1024);
    expect(memoryBytes('unlimited')).toBeUndefined();
    expect(memoryBytes('')).toBeUndefined();
  });

  it('keeps a transaction open through a lull while units are expected, and commits when told they stopped', async () => {
    // A backfill's fetches wait for the rate budget in bursts: a transaction that committed at every lull held a few
    // thousand rows, and DuckDB's cost is mostly per commit.
    const loader = new Loader(ws.session, 0, { rows: 1_000_000, ms: 60_000 });
    let coming = true;
    loader.expectUnits(() => coming);
    let transactions = 0;
    loader.setBatchWork({ begin: () => transactions++, end: async () => {} });
    let committed = 0;
    const landed: Array<Promise<unknown>> = [];
    const given: TableLoad[][] = [];
    for (let u = 0; u < 3; u++) {
      const loads = [{ table: 'raw.chats', rows: [chat(`c${u}`, '2026-01-01')] }];
      given.push(loads);
      landed.push(loader.loadUnit(loads, run).then(() => committed++));
      // Long enough for the loader to land the unit and find nothing queued.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(committed).toBe(0);
    expect(loader.backlogRows).toBe(0);
    // Appended, not yet committed: the loader let go of the rows (it empties the arrays it was given).
    expect(given.map((loads) => loads.length)).toEqual([0, 0, 0]);
    coming = false;
    loader.nudge();
    await Promise.all(landed);
    expect(transactions).toBe(1);
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(3);
  });

  it('commits a transaction kept open through a lull as soon as a statement queues for its connection', async () => {
    // The per-domain streams read the landed top domains while they fetch: a transaction that waited for their units,
    // while their reads waited for it, stood still until its time ran out (10 s a stream, at every sync of more
    // projects than fetches in flight). Here the time is an hour: without the fix the read would wait it out.
    const loader = new Loader(ws.session, 0, { rows: 1_000_000, ms: 3_600_000 });
    loader.expectUnits(() => true);
    let transactions = 0;
    loader.setBatchWork({ begin: () => transactions++, end: async () => {} });
    for (const [u, day] of ['2026-01-01', '2026-01-02'].entries()) {
      const landed = loader.loadUnit([{ table: 'raw.chats', rows: [chat(`c${u}`, day)] }], run);
      // Long enough for the loader to land the unit and wait for more.
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The reader sees the unit committed, and the unit's promise says so.
      expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(u + 1);
      await landed;
    }
    expect(transactions).toBe(2);
  });

  it('rolls back every batch of a transaction when a later one fails: no unit of it lands, its state neither', async () => {
    const loader = new Loader(ws.session, 0, { rows: 1_000_000, ms: 60_000 });
    let coming = true;
    loader.expectUnits(() => coming);
    const key = { teamId: 'team-a', stream: 'chats', parentId: 'q1' };
    const first = loader.loadUnit([{ table: 'raw.chats', rows: [chat('c1', '2026-01-01')] }], run, () =>
      ws.state.markFinished(key, { from: '2026-01-01', to: '2026-01-01' }, 'run-1', '2026-01-02'),
    );
    const firstFailed = expect(first).rejects.toThrow(/raw\.chats\.date/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    coming = false;
    const bad = { ...chat('c2', '2026-01-02'), date: 'yesterday' };
    await expect(loader.loadUnit([{ table: 'raw.chats', rows: [bad] }], run)).rejects.toThrow(/raw\.chats\.date/);
    await firstFailed;
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(0);
    expect(await ws.state.finished(key)).toEqual([]);
  });

  it('lands a batch without waiting gatherMs when no more units are coming, or once told they stopped', async () => {
    // A stream that reads landed rows waits for the batch before it, and so does the sync's end: a gather of its
    // own at each of them cost a small night's sync 0.3 s a time. The wait here is an hour: waiting would time out.
    const loader = new Loader(ws.session, 3_600_000);
    let coming = false;
    loader.expectUnits(() => coming);
    await loader.loadUnit([{ table: 'raw.chats', rows: [chat('c0', '2026-01-01')] }], run);
    coming = true;
    const landed = loader.loadUnit([{ table: 'raw.chats', rows: [chat('c1', '2026-01-01')] }], run);
    await new Promise((resolve) => setTimeout(resolve, 50));
    coming = false;
    loader.nudge();
    await landed;
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(2);
  });

  it('gathers units that arrive one at a time within gatherMs into one transaction', async () => {
    // A backfill's requests end one by one: each landing in a transaction of its own cost a WAL commit and the
    // state statements per request.
    const loader = new Loader(ws.session, 60_000);
    let batches = 0;
    loader.setBatchWork({ begin: () => batches++, end: async () => {} });
    const landed: Array<Promise<unknown>> = [];
    for (let u = 0; u < 3; u++) {
      landed.push(loader.loadUnit([{ table: 'raw.chats', rows: [chat(`c${u}`, '2026-01-01')] }], run));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A full batch's worth of rows ends the wait at once (else this would wait out the minute).
    const rows = Array.from({ length: BATCH_ROWS - 3 }, (_, i) => chat(`big${i}`, '2026-01-02'));
    landed.push(loader.loadUnit([{ table: 'raw.chats', rows }], run));
    await Promise.all(landed);
    expect(batches).toBe(1);
    expect(await ws.session.scalar('SELECT count(*) FROM raw.chats')).toBe(BATCH_ROWS);
  });
});
