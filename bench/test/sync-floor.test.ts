/**
 * bench/sync-floor.ts measures the floor bench/sync-cpu judges the backfill's CPU against, and its durable write is
 * what the flatness with history is judged by: the raw tables copied by DuckDB's own writer in the fewest
 * transactions the sync's durability bound allows. A copy that lost or doubled rows, a transaction count off the
 * bound, or a setting left changed on the sync's warehouse would make that judgement wrong.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UndiciTransport } from '../../src/client/undici-transport.js';
import { TRANSACTION_MS, TRANSACTION_ROWS } from '../../src/warehouse/loader.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../../test/sync/support.js';
import { landWorld } from '../land-world.js';
import { copyInSteps, durableTransactions, measureFloor, RecordingTransport } from '../sync-floor.js';

let tmp: ReturnType<typeof tempDir>;
let landed: string;
beforeAll(async () => {
  tmp = tempDir();
  landed = join(tmp.dir, 'landed.duckdb');
  await landWorld({ world: { seed: 23, projects: 2, prompts: 4, days: 45 }, out: landed });
});
afterAll(() => tmp.cleanup());

describe('bench/sync-floor: the durable floor', () => {
  it('the fewest transactions: the larger of the wall ÷ TRANSACTION_MS and the rows ÷ TRANSACTION_ROWS, at least one', () => {
    expect(durableTransactions(0, 0)).toBe(1);
    expect(durableTransactions(TRANSACTION_MS * 4.5, 10)).toBe(5);
    expect(durableTransactions(1, TRANSACTION_ROWS * 2 + 1)).toBe(3);
    expect(durableTransactions(TRANSACTION_MS * 3, TRANSACTION_ROWS * 7)).toBe(7);
  });

  it('seed 23, 2 × 4 × 45: a copy in five transactions, checkpointed at the end only, holds every raw row once', async () => {
    const warehouse = await Warehouse.open(landed);
    const session = warehouse.database.session;
    try {
      const tables = (
        await session.all<{ t: string }>(
          "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'raw' AND table_catalog = current_database() ORDER BY 1",
        )
      ).map((r) => r.t);
      const counts: Record<string, number> = {};
      for (const t of tables) counts[t] = Number(await session.scalar(`SELECT count(*) FROM raw."${t}"`));
      expect(Object.values(counts).filter((n) => n > 5).length).toBeGreaterThan(4);

      const file = join(tmp.dir, 'copy.duckdb');
      await session.run(`ATTACH '${file}' AS copy`);
      await session.run('CREATE SCHEMA copy.raw');
      for (const t of tables) await session.run(`CREATE TABLE copy.raw."${t}" AS SELECT * FROM raw."${t}" LIMIT 0`);
      const cpu = await copyInSteps(session, counts, 5, {
        source: 'landed',
        target: 'copy',
        wal: `${file}.wal`,
        walLimit: undefined,
      });
      expect(cpu).toBeGreaterThan(0);
      for (const t of tables) {
        const copied = Number(await session.scalar(`SELECT count(*) FROM copy.raw."${t}"`));
        const missing = Number(
          await session.scalar(
            `SELECT count(*) FROM (SELECT * FROM raw."${t}" EXCEPT ALL SELECT * FROM copy.raw."${t}")`,
          ),
        );
        expect({ table: t, copied, missing }).toEqual({ table: t, copied: counts[t], missing: 0 });
      }
      await session.run('DETACH copy');
    } finally {
      warehouse.close();
    }
  });

  it('measureFloor: the durable write in the bound’s transactions, costing more than one; the warehouse’s setting restored', async () => {
    const warehouse = await Warehouse.open(landed);
    const session = warehouse.database.session;
    const recording = new RecordingTransport(new UndiciTransport(), 1);
    try {
      await session.run("SET checkpoint_threshold = '48MiB'");
      const before = await session.scalar<string>("SELECT current_setting('checkpoint_threshold')");
      const floor = await measureFloor(session, recording, 100, 1, TRANSACTION_MS * 12.5);
      expect(floor.sampled_bodies).toBe(0);
      expect(floor.durable_transactions).toBe(13);
      expect(floor.write_ms).toBeGreaterThan(0);
      // Thirteen commits and their WAL cost DuckDB more than one transaction; the durable write is the cheaper way of
      // checkpointing less what reading the slices costs over one pass.
      const { wal_limit, end_only } = floor.durable_copy_ms;
      expect(Math.min(wal_limit, end_only)).toBeGreaterThan(floor.write_ms);
      const durable = Math.min(wal_limit, end_only) - floor.durable_read_over_ms;
      expect(Math.abs(floor.durable_write_ms - durable)).toBeLessThanOrEqual(2);
      expect(Math.abs(floor.durable_floor_ms - floor.parse_ms - floor.durable_write_ms)).toBeLessThanOrEqual(2);
      expect(floor.durable_read_over_ms).toBeGreaterThanOrEqual(0);
      expect(await session.scalar<string>("SELECT current_setting('checkpoint_threshold')")).toBe(before);
      expect(
        Number(await session.scalar('SELECT count(*) FROM duckdb_databases() WHERE database_name = $1', ['floor'])),
      ).toBe(0);
    } finally {
      recording.dispose();
      await recording.close();
      warehouse.close();
    }
  });
});
