import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { contentOf, openWarehouse, query, runSync, startWorld, TODAY, tempDir, WINDOW_MS } from './harness.js';

const BIN = 'dist/src/cli/bin.js';
const COMPILED = 'dist/src/extract/team-sync.js';
// The real kill -9 needs the compiled CLI (CI builds before testing); the in-process crash test covers the rest.
const built =
  existsSync(BIN) && existsSync(COMPILED) && statSync(COMPILED).mtimeMs >= statSync('src/extract/team-sync.ts').mtimeMs;

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
  const child = spawn(
    process.execPath,
    [
      BIN,
      'sync',
      '--db',
      db,
      '--today',
      TODAY,
      '--rate-window-ms',
      String(WINDOW_MS),
      '--log-format',
      'json',
      '--team',
      'team-demo',
      '--window-days',
      '7',
      '--top-domains',
      '2',
    ],
    {
      env: {
        ...process.env,
        VWH_API_KEY: server.demoApiKey ?? '',
        VWH_BASE_URL: server.url,
        VWH_LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
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

describe('kill -9', () => {
  it.skipIf(!built)(
    'a sync killed with SIGKILL (needs `npm run build`) resumes to the uninterrupted result',
    async () => {
      const whA = await openWarehouse(`${tmp.dir}/a.duckdb`);
      expect((await runSync(server, whA)).status).toBe('succeeded');
      const expected = await contentOf(whA);
      whA.close();

      const db = `${tmp.dir}/killed.duckdb`;
      const kills = [10, 40];
      for (const after of kills) expect(await childSync(db, after)).toBeNull();
      expect(await childSync(db, undefined)).toBe(0);

      const wh = await openWarehouse(db);
      expect(await contentOf(wh)).toEqual(expected);
      const runs = await query<{ status: string }>(wh, 'SELECT status FROM ops.sync_runs ORDER BY started_at');
      expect(runs.map((r) => r.status)).toEqual(['interrupted', 'interrupted', 'succeeded']);
      wh.close();
    },
  );
});
