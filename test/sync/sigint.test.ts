/**
 * Ctrl-C keeps what was fetched: a `vwh sync` stopped by SIGINT lands the units whose pages had all arrived, exits
 * 130, and the next sync fetches the rest, ending where a clean sync ends, without a duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { openWarehouse, query, spawnCliSync, startWorld, tempDir } from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  // a larger world than the harness's default, so the sync takes a few seconds at the scaled rate window
  server = await startWorld({ projects: 3, prompts: 8, historyDays: 30 });
  tmp = tempDir();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/**
 * Runs `vwh sync` in a child of the built CLI; with `interruptAfter`, sends SIGINT once it has made that many
 * requests for chats (its debug logs on stderr), while units are in flight and in the loader's open transaction.
 * Resolves the exit code and stderr.
 */
function childSync(db: string, interruptAfter?: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawnCliSync(server, db);
  let requests = 0;
  let stderr = '';
  let sent = false;
  child.stderr?.on('data', (chunk) => {
    const text = String(chunk);
    stderr += text;
    // the chats' pages (each chat unit is several): SIGINT comes while chats are fetched and landing
    requests += text.split('\n').filter((line) => line.includes('"api request"') && line.includes('/chats')).length;
    if (interruptAfter !== undefined && !sent && requests >= interruptAfter) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

async function chats(db: string): Promise<{ rows: number; ids: number }> {
  const wh = await openWarehouse(db);
  try {
    const [row] = await query<{ rows: number; ids: number }>(
      wh,
      'SELECT count(*)::INT AS rows, count(DISTINCT id)::INT AS ids FROM raw.chats',
    );
    return { rows: Number(row?.rows ?? 0), ids: Number(row?.ids ?? 0) };
  } finally {
    wh.close();
  }
}

describe('SIGINT during vwh sync', () => {
  it('lands the units fetched, exits 130, and the next sync completes to a clean sync, no duplicates', async () => {
    const clean = `${tmp.dir}/clean.duckdb`;
    const first = await childSync(clean);
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    const expected = await chats(clean);
    expect(expected.rows).toBeGreaterThan(0);

    const db = `${tmp.dir}/interrupted.duckdb`;
    const stopped = await childSync(db, 12);
    expect(stopped.code, stopped.stderr.slice(-2000)).toBe(130);
    const kept = await chats(db);
    expect(kept.rows).toBeGreaterThan(0);
    expect(kept.rows).toBeLessThan(expected.rows);
    // the run's record counts what landed (it said 0/180 units, no rows, while rows had landed)
    const wh = await openWarehouse(db);
    try {
      const [run] = await query<{ units: number; status: string }>(
        wh,
        'SELECT units_done::INT AS units, status FROM ops.sync_runs',
      );
      expect(run?.status).toBe('interrupted');
      expect(Number(run?.units)).toBeGreaterThan(0);
    } finally {
      wh.close();
    }

    const resumed = await childSync(db);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    const after = await chats(db);
    expect(after.ids).toBe(after.rows);
    expect(after).toEqual(expected);
  }, 120_000);
});
