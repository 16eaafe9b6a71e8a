/**
 * src/warehouse/vacuum.ts: the warehouse's DuckDB opens with vacuuming off, so a checkpoint leaves deleted rows
 * stored (a night's checkpoint on a 365-day warehouse no longer rewrites `raw.chats`' last row groups), and
 * `vacuumIfDue` turns it on for a sync once a raw table's deleted rows reach the share asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadRows, vacuumIfDue } from '../../src/warehouse/vacuum.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../sync/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

describe('vacuuming: off at every checkpoint, on when a sync finds enough deleted rows', () => {
  it('a DELETE stays stored through a checkpoint, and vacuumIfDue compacts it only past its share', async () => {
    const warehouse = await Warehouse.open(tmp.db);
    const session = warehouse.database.session;
    try {
      expect(Number(await session.scalar("SELECT current_setting('max_vacuum_tasks')"))).toBe(0);
      // Two row groups (122,880 + 10,000 rows); DuckDB's vacuum compacts the first once nearly all of it is deleted.
      await session.run(
        "CREATE TABLE raw.vacuum_probe AS SELECT range AS i, repeat('x', 40) || range AS s FROM range(132880)",
      );
      await session.run('CHECKPOINT');
      await session.run('DELETE FROM raw.vacuum_probe WHERE i < 122000');
      await session.run('CHECKPOINT');
      const probe = async () => (await deadRows(session)).find((t) => t.table === 'vacuum_probe');
      expect(await probe()).toEqual({ table: 'vacuum_probe', rows: 10_880, dead: 122_000 });

      // Not due at 20 × the rows: the setting stays off, and a checkpoint of a change leaves the deleted rows.
      expect(await vacuumIfDue(session, 20)).toEqual([]);
      expect(Number(await session.scalar("SELECT current_setting('max_vacuum_tasks')"))).toBe(0);
      await session.run('DELETE FROM raw.vacuum_probe WHERE i = 122000');
      await session.run('CHECKPOINT');
      expect(await probe()).toEqual({ table: 'vacuum_probe', rows: 10_879, dead: 122_001 });

      // Due at 10 %: the next checkpoint that writes the table compacts it.
      const due = await vacuumIfDue(session, 0.1);
      expect(due.map((t) => t.table)).toEqual(['vacuum_probe']);
      expect(Number(await session.scalar("SELECT current_setting('max_vacuum_tasks')"))).toBeGreaterThan(0);
      await session.run('DELETE FROM raw.vacuum_probe WHERE i = 122001');
      await session.run('CHECKPOINT');
      expect(await probe()).toEqual({ table: 'vacuum_probe', rows: 10_878, dead: 0 });
      expect(Number(await session.scalar('SELECT min(i) FROM raw.vacuum_probe'))).toBe(122_002);
      // Nothing left to compact: the next sync's checkpoints do not vacuum.
      expect(await vacuumIfDue(session, 0.1)).toEqual([]);
      expect(Number(await session.scalar("SELECT current_setting('max_vacuum_tasks')"))).toBe(0);
    } finally {
      warehouse.close();
    }
  });
});
