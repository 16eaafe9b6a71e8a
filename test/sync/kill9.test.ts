import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { contentOf, openWarehouse, query, rng, runSync, spawnCliSync, startWorld, tempDir } from './support.js';

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

/** Runs `vwh sync` in a child; kills it with SIGKILL after `killAfterUnits` committed units. Resolves the exit code. */
function childSync(db: string, killAfterUnits: number | undefined): Promise<number | null> {
  const child = spawnCliSync(server, db, ['--window-days', '7', '--top-domains', '2']);
  let units = 0;
  let buffer = '';
  child.stderr?.on('data', (chunk) => {
    buffer += String(chunk);
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes('"unit done"')) units++;
      if (killAfterUnits !== undefined && units >= killAfterUnits && child.exitCode === null) child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

/** Units the runs recorded in `db` so far have landed (0 before the first run). */
async function landedUnits(db: string): Promise<number> {
  if (!existsSync(db)) return 0;
  const wh = await openWarehouse(db);
  try {
    const [row] = await query<{ n: number | null }>(wh, 'SELECT sum(units_done) AS n FROM ops.sync_runs');
    return Number(row?.n ?? 0);
  } finally {
    wh.close();
  }
}

describe('kill -9', () => {
  it('a sync killed with SIGKILL resumes to the uninterrupted result', async () => {
    const whA = await openWarehouse(`${tmp.dir}/a.duckdb`);
    const clean = await runSync(server, whA);
    expect(clean.status).toBe('succeeded');
    const expected = await contentOf(whA);
    whA.close();

    // Two kills at random units (seeded), each well before the end of the run it interrupts: within the first
    // half (then third) of the units still to land, since a kill lands after the batch that logged its unit.
    const random = rng(Number(process.env.VWH_KILL_SEED ?? 4));
    const total = clean.counters.unitsDone;
    const db = `${tmp.dir}/killed.duckdb`;
    const kills: number[] = [];
    for (const part of [0.5, 0.3]) {
      const left = total - (await landedUnits(db));
      const after = 1 + Math.floor(random() * left * part);
      kills.push(after);
      expect(await childSync(db, after), `killed after ${after} units`).toBeNull();
    }
    expect(await childSync(db, undefined)).toBe(0);

    const wh = await openWarehouse(db);
    expect(await contentOf(wh)).toEqual(expected);
    const runs = await query<{ status: string; units_done: number; units_planned: number; requests: number }>(
      wh,
      'SELECT status, units_done, units_planned, requests FROM ops.sync_runs ORDER BY started_at',
    );
    expect(runs.map((r) => r.status)).toEqual(['interrupted', 'interrupted', 'succeeded']);
    // A killed run's record counts what it landed (written in each unit's transaction), not zeros.
    for (const [i, after] of kills.entries()) {
      const run = runs[i];
      expect(run?.units_done, `run killed after ${after} units`).toBeGreaterThanOrEqual(after);
      expect(run?.units_planned).toBeGreaterThan(run?.units_done ?? 0);
      expect(run?.requests).toBeGreaterThanOrEqual(run?.units_done ?? 0);
    }
    wh.close();
  });
});
