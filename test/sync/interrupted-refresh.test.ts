/**
 * An interrupted `--full-refresh` (a 5xx on every prompt-level request, the key revoked mid-run, a kill -9 of the CLI)
 * followed by a normal sync ends with the same raw.* as an uninterrupted sync: no row twice (issue 55, item 1).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { BIN } from '../fixtures.js';
import { startRewritingProxy } from './proxy.js';
import { CLI_COMMON, contentOf, openWarehouse, query, runSync, startWorld, tempDir } from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;
let expected: Record<string, string[]>;

beforeAll(async () => {
  server = await startWorld();
  tmp = tempDir();
  const wh = await openWarehouse(`${tmp.dir}/clean.duckdb`);
  expect((await runSync(server, wh)).status).toBe('succeeded');
  expected = await contentOf(wh);
  wh.close();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** Tables holding a row twice (the same content, the run columns aside). */
async function doubled(wh: Warehouse): Promise<string[]> {
  const out: string[] = [];
  for (const [table, rows] of Object.entries(await contentOf(wh)))
    if (new Set(rows).size < rows.length) out.push(table);
  return out;
}

describe('an interrupted --full-refresh', () => {
  it('after a 5xx on every prompt request, the next sync leaves raw.* as a clean sync does', async () => {
    const wh = await openWarehouse(`${tmp.dir}/5xx.duckdb`);
    try {
      expect((await runSync(server, wh)).status).toBe('succeeded');
      control.setFaults(server.state, '5xx=1@/projects/*/prompts/**');
      const refresh = await runSync(server, wh, { fullRefresh: true, retries: 1 });
      control.setFaults(server.state, null);
      expect(refresh.status).toBe('failed');
      expect(refresh.failedUnits.length).toBeGreaterThan(0);
      expect((await runSync(server, wh)).status).toBe('succeeded');
      expect(await doubled(wh)).toEqual([]);
      const [chats] = await query<{ n: number; ids: number }>(
        wh,
        'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM raw.chats',
      );
      expect(chats?.n).toBe(chats?.ids);
      expect(await contentOf(wh)).toEqual(expected);
    } finally {
      wh.close();
    }
  });

  it('after the key is revoked mid-run (exit 3), the next sync leaves raw.* as a clean sync does', async () => {
    const wh = await openWarehouse(`${tmp.dir}/revoked.duckdb`);
    const key = server.demoApiKey ?? '';
    try {
      expect((await runSync(server, wh)).status).toBe('succeeded');
      // The key is revoked as the refresh asks for its first chats, long before its last unit.
      const proxy = await startRewritingProxy(
        server.url,
        (_path, body) => body,
        (path) => {
          if (path.endsWith('/chats')) control.updateKey(server.state, key, { status: 'inactive' });
        },
      );
      const refresh = runSync({ ...server, url: proxy.url }, wh, { fullRefresh: true }).finally(() => proxy.close());
      await expect(refresh).rejects.toMatchObject({ code: 'AUTH_INACTIVE_KEY', exitCode: 3 });
      control.updateKey(server.state, key, { status: 'active' });
      expect((await runSync(server, wh)).status).toBe('succeeded');
      expect(await doubled(wh)).toEqual([]);
      expect(await contentOf(wh)).toEqual(expected);
    } finally {
      control.updateKey(server.state, key, { status: 'active' });
      wh.close();
    }
  });

  it('after a kill -9 of `vwh sync --full-refresh`, the same', async () => {
    const db = `${tmp.dir}/killed.duckdb`;
    const wh = await openWarehouse(db);
    expect((await runSync(server, wh)).status).toBe('succeeded');
    wh.close();
    // Killed as it asks for its first chats: what it re-landed before stays, the rest is as the first sync left it.
    const firstChats = (line: string) => line.includes('"api request"') && /\/chats\b/.test(line);
    expect(await childSync(db, ['--full-refresh'], firstChats)).toBeNull();
    expect(await childSync(db, [], undefined)).toBe(0);
    const after = await openWarehouse(db);
    try {
      expect(await doubled(after)).toEqual([]);
      expect(await contentOf(after)).toEqual(expected);
      const runs = await query<{ status: string }>(after, 'SELECT status FROM ops.sync_runs ORDER BY started_at');
      expect(runs.map((r) => r.status)).toEqual(['succeeded', 'interrupted', 'succeeded']);
    } finally {
      after.close();
    }
  });
});

/** `vwh sync` in a child of the built CLI, killed with SIGKILL at the first log line `killAt` matches. */
function childSync(
  db: string,
  extra: string[],
  killAt: ((line: string) => boolean) | undefined,
): Promise<number | null> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'sync',
      '--db',
      db,
      ...CLI_COMMON,
      '--team',
      'team-demo',
      '--window-days',
      '7',
      '--top-domains',
      '2',
      ...extra,
    ],
    {
      env: { ...process.env, VWH_API_KEY: server.demoApiKey ?? '', VWH_BASE_URL: server.url, VWH_LOG_LEVEL: 'debug' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let buffer = '';
  child.stderr?.on('data', (chunk) => {
    buffer += String(chunk);
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (killAt?.(line) && child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}
