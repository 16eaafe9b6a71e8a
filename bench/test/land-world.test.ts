/**
 * The bench's landing (bench/land-world.ts: the reference world answered in process, landed by the sync without
 * HTTP) gives raw.* identical to a real `vwh sync` (the built CLI, a child process) against a reference server of
 * the same world on port 0: every raw table, every row, every column but the run's bookkeeping, `_sync_run_id` (a
 * new id per run) and `_extracted_at` (the machine's time of landing). Two worlds: seed 7 at 2 × 5 × 20 (a
 * backfill), and seed 19 at 3 × 2 × 30 with a night after it (the reference clock a day on; the lookback and the
 * rotation as vwh sync's defaults make them).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/core/days.js';
import { control, startReferenceServer } from '../../src/reference/index.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { vwh } from '../../test/cli/support.js';
import { contentOf, tempDir } from '../../test/sync/support.js';
import { BENCH_TODAY, landWorld, type WorldSpec } from '../land-world.js';

const WINDOW_MS = 50;

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

async function content(path: string): Promise<Record<string, string[]>> {
  const warehouse = await Warehouse.open(path);
  try {
    return await contentOf(warehouse);
  } finally {
    warehouse.close();
  }
}

/** `vwh sync` over HTTP: a reference server of the world on port 0, the CLI as a user runs it; then `nights` more. */
async function syncOverHttp(world: WorldSpec, db: string, nights: number): Promise<void> {
  const server = await startReferenceServer({
    port: 0,
    seed: world.seed,
    projects: world.projects,
    prompts: world.prompts,
    historyDays: world.days,
    today: BENCH_TODAY,
    demo: true,
    rateWindowMs: WINDOW_MS,
  });
  try {
    for (let night = 0; night <= nights; night++) {
      if (night > 0) control.advanceClock(server.state, { days: 1 });
      const ran = await vwh(
        ['sync', '--db', db, '--today', addDays(BENCH_TODAY, night), '--rate-window-ms', String(WINDOW_MS)],
        {
          cwd: tmp.dir,
          env: { VWH_API_KEY: server.demoApiKey ?? '', VWH_BASE_URL: server.url, VWH_LOG_LEVEL: 'error' },
        },
      );
      expect(ran.code, ran.stderr).toBe(0);
    }
  } finally {
    await server.close();
  }
}

describe('bench/land-world: raw.* as vwh sync lands it', () => {
  it('seed 7, 2 × 5 × 20: the landing equals a backfill by vwh sync over HTTP, table by table', async () => {
    const world = { seed: 7, projects: 2, prompts: 5, days: 20 };
    const landed = join(tmp.dir, 'landed-7.duckdb');
    const synced = join(tmp.dir, 'synced-7.duckdb');
    const result = await landWorld({ world, out: landed });
    await syncOverHttp(world, synced, 0);
    const [a, b] = [await content(landed), await content(synced)];
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const table of Object.keys(b)) expect(a[table], `raw.${table}`).toEqual(b[table]);
    // Not two empty warehouses: the answers, their mentions and references landed.
    for (const table of ['chats', 'chat_mentions', 'chat_references']) expect(b[table]?.length).toBeGreaterThan(100);
    expect(result.rows).toBe(Object.values(b).reduce((n, rows) => n + rows.length, 0));
  });

  it('seed 19, 3 × 2 × 30 and a night: the landed night equals vwh sync of the next API day', async () => {
    const world = { seed: 19, projects: 3, prompts: 2, days: 30 };
    const landed = join(tmp.dir, 'landed-19.duckdb');
    const synced = join(tmp.dir, 'synced-19.duckdb');
    await landWorld({ world, out: landed });
    const night = await landWorld({ world, out: landed, nights: 1 });
    expect(night.today).toBe(addDays(BENCH_TODAY, 1));
    await syncOverHttp(world, synced, 1);
    const [a, b] = [await content(landed), await content(synced)];
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const table of Object.keys(b)) expect(a[table], `raw.${table}`).toEqual(b[table]);
    // The night landed the new day's answers.
    expect(b.chats?.some((row) => row.includes(`"${addDays(BENCH_TODAY, 1)}`))).toBe(true);
  });
});
