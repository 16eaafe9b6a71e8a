import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { runSync, syncProblems } from '../../src/sync/run.js';
import { TODAY } from '../fixtures.js';
import { openWarehouse, query, startWorld, tempDir, WINDOW_MS } from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;
const saved = { ...process.env };

beforeAll(async () => {
  server = await startWorld({ seed: 11 });
  tmp = tempDir();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});
afterEach(() => {
  process.env = { ...saved };
});

describe('runSync: the sync returns what it did', () => {
  it("returns each team's result and the counts of its own runs, not of earlier runs in the same warehouse", async () => {
    process.env.VWH_KEY_A = server.demoApiKey ?? '';
    process.env.VWH_KEY_B = 'vwh_live_not_a_real_key_000000000000';
    process.env.VWH_LOG_LEVEL = 'error';
    const config = `${tmp.dir}/vwh.config.json`;
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: server.url,
        rateWindowMs: WINDOW_MS,
        windowDays: 7,
        streams: ['projects', 'prompts', 'chats', 'visibility_daily'],
        teams: [
          { team: 'agency-a', apiKeyEnv: 'VWH_KEY_A' },
          { team: 'agency-b', apiKeyEnv: 'VWH_KEY_B' },
        ],
      }),
    );
    const db = `${tmp.dir}/counts.duckdb`;
    const options = { config, db, today: TODAY, logFormat: 'json' as const };
    const first = await runSync(options, { out: new PassThrough() });
    const second = await runSync(options, { out: new PassThrough() });
    const wh = await openWarehouse(db);
    const rows = await query<{ run_id: string; requests: number; units: number; rejected: number; throttled: number }>(
      wh,
      `SELECT run_id, requests, units_done AS units, rejected_rows AS rejected, throttled_429 AS throttled
         FROM ops.sync_runs ORDER BY started_at`,
    );
    const [landed] = await query<{ chats: number }>(wh, 'SELECT count(*)::INT AS chats FROM raw.chats');
    wh.close();
    // the first run filled an empty warehouse: the chats it says it landed are the table's rows
    expect(first.counts.rows['raw.chats']).toBe(landed?.chats);
    // the refused key is an error of its team, exit 3, and no run of its own
    expect(second.exitCode).toBe(3);
    expect(second.teams.map((t) => [t.teamId, t.error?.code])).toEqual([
      ['agency-a', undefined],
      ['agency-b', 'AUTH_INVALID_KEY'],
    ]);
    expect(syncProblems(second)).toEqual([expect.stringMatching(/^vwh: team agency-b: .*\[AUTH_INVALID_KEY\]$/)]);
    expect(rows).toHaveLength(2);
    for (const [outcome, row] of [
      [first, rows[0]],
      [second, rows[1]],
    ] as const) {
      expect(outcome.teams[0]?.result?.runId).toBe(row?.run_id);
      expect(outcome.counts).toMatchObject({
        teams: 1,
        requests: Number(row?.requests),
        units: Number(row?.units),
        rejected_rows: Number(row?.rejected),
        throttled_429: Number(row?.throttled),
      });
      // the plan it counts is its own run's
      expect(outcome.counts.units_planned).toBeGreaterThanOrEqual(outcome.counts.units);
    }
    expect(first.counts.requests).toBeGreaterThan(0);
    expect(first.counts.units).toBeGreaterThan(second.counts.units);
  });
});
