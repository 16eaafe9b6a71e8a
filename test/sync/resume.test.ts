import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { contentOf, openWarehouse, query, rng, runSync, startWorld, tempDir } from './support.js';

/** What the test hooks throw: the sync ends as a kill -9 would end it, and rejects with this error. */
class SimulatedCrash extends Error {}

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startWorld();
  tmp = tempDir();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('kill and resume', () => {
  it('a sync crashed at random points (inside and between units) resumes to the uninterrupted result', async () => {
    const whA = await openWarehouse(`${tmp.dir}/a.duckdb`);
    const clean = await runSync(server, whA);
    expect(clean.status).toBe('succeeded');
    const expected = await contentOf(whA);
    whA.close();

    const random = rng(20261122);
    const dbB = `${tmp.dir}/b.duckdb`;
    // Three crashes at random units (inside a unit's transaction, between units, inside again), then a clean run.
    const schedule = [true, false, true];
    const landedBeforeCrash: number[] = [];
    for (const inside of schedule) {
      const whB = await openWarehouse(dbB);
      const crashAt = 1 + Math.floor(random() * 25);
      // A crash inside a unit's transaction rolls back that unit's batch (the units landing with it); one after a
      // unit keeps it. What was committed is what the afterUnit hook saw.
      let committed = 0;
      const crash = (n: number) => {
        if (n === crashAt) throw new SimulatedCrash(`crash at unit ${n}`);
      };
      const afterUnit = (n: number) => {
        if (!inside) crash(n);
        committed = n;
      };
      try {
        await expect(
          runSync(server, whB, { hooks: inside ? { inTransaction: crash, afterUnit } : { afterUnit } }),
        ).rejects.toBeInstanceOf(SimulatedCrash);
      } finally {
        whB.close();
      }
      landedBeforeCrash.push(inside ? committed : crashAt);
    }
    const whLast = await openWarehouse(dbB);
    const last = await runSync(server, whLast);
    whLast.close();
    expect(last.status).toBe('succeeded');
    expect(last.counters.unitsPlanned).toBeLessThan(clean.counters.unitsPlanned);
    const crashes = schedule.length;
    const whB = await openWarehouse(dbB);
    expect(await contentOf(whB)).toEqual(expected);
    const runs = await query<{ status: string; n: number }>(
      whB,
      'SELECT status, count(*) AS n FROM ops.sync_runs GROUP BY status ORDER BY status',
    );
    // Every crashed run was found `running` by the next one and marked interrupted.
    expect(runs).toEqual([
      { status: 'interrupted', n: crashes },
      { status: 'succeeded', n: 1 },
    ]);
    // Their records count the units they landed, written in each unit's transaction, so true after the crash.
    const records = await query<{ units_done: number; units_planned: number; requests: number }>(
      whB,
      "SELECT units_done, units_planned, requests FROM ops.sync_runs WHERE status = 'interrupted' ORDER BY started_at",
    );
    for (const [i, record] of records.entries()) {
      expect(record.units_done).toBeGreaterThanOrEqual(landedBeforeCrash[i] ?? 0);
      expect(record.units_planned).toBeGreaterThan(record.units_done);
      expect(record.requests).toBeGreaterThanOrEqual(record.units_done);
    }
    whB.close();
  });

  it('Ctrl-C (an aborted signal) stops between units, records the run as interrupted, and the next sync finishes', async () => {
    const db = `${tmp.dir}/abort.duckdb`;
    const controller = new AbortController();
    const wh = await openWarehouse(db);
    const stopped = await runSync(server, wh, {
      signal: controller.signal,
      hooks: { afterUnit: (n) => (n === 5 ? controller.abort(new Error('SIGINT')) : undefined) },
    });
    expect(stopped.status).toBe('interrupted');
    expect(stopped.counters.unitsDone).toBeLessThan(stopped.counters.unitsPlanned);
    const resumed = await runSync(server, wh);
    expect(resumed.status).toBe('succeeded');
    const runs = await query<{ status: string }>(wh, 'SELECT status FROM ops.sync_runs ORDER BY started_at');
    expect(runs.map((r) => r.status)).toEqual(['interrupted', 'succeeded']);
    wh.close();
  });
});
