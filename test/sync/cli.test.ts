import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSyncCommand } from '../../src/cli/commands/sync.js';
import { main } from '../../src/cli/main.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { openWarehouse, query, startWorld, TODAY, tempDir, WINDOW_MS } from './harness.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;
const saved = { ...process.env };

beforeAll(async () => {
  server = await startWorld();
  tmp = tempDir();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});
afterEach(() => {
  process.env = { ...saved };
  process.exitCode = 0;
  vi.restoreAllMocks();
});

function env(key = server.demoApiKey ?? '') {
  process.env.VWH_API_KEY = key;
  process.env.VWH_BASE_URL = server.baseUrl;
  process.env.VWH_LOG_LEVEL = 'error';
}

const common = ['--today', TODAY, '--rate-window-ms', String(WINDOW_MS), '--log-format', 'json'];

function captureStderr(): () => string {
  let text = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  return () => text;
}

async function rawRows(db: string): Promise<number> {
  const wh = await openWarehouse(db);
  try {
    const rows = await query<{ n: number }>(
      wh,
      "SELECT sum(estimated_size) AS n FROM duckdb_tables() WHERE schema_name = 'raw'",
    );
    const runs = await query<{ n: number }>(wh, 'SELECT count(*) AS n FROM ops.sync_runs');
    return (rows[0]?.n ?? 0) + (runs[0]?.n ?? 0);
  } finally {
    wh.close();
  }
}

describe('vwh sync (CLI)', () => {
  it('--plan prints requests per stream and the floor time, and lands nothing', async () => {
    env();
    const db = `${tmp.dir}/plan.duckdb`;
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => {
      text += String(c);
    });
    const code = await runSyncCommand(
      { db, plan: true, today: TODAY, rateWindowMs: WINDOW_MS, logFormat: 'json' },
      out,
    );
    expect(code).toBe(0);
    expect(text).toMatch(/chats\s+\d+\s+\d+\s+0\/\d+/);
    expect(text).toMatch(/total \d+ requests .*floor/);
    expect(await rawRows(db)).toBe(0);
  });

  it('an invalid key stops at once with the API detail, exit 3, nothing written', async () => {
    env('vwh_live_not_a_real_key_000000000000');
    const stderr = captureStderr();
    const db = `${tmp.dir}/auth.duckdb`;
    const code = await main(['node', 'vwh', 'sync', '--db', db, ...common]);
    expect(code).toBe(3);
    expect(stderr()).toContain('Invalid API key');
    expect(stderr()).not.toContain('vwh_live_not_a_real_key_000000000000');
    vi.restoreAllMocks();
    expect(await rawRows(db)).toBe(0);
  });

  it('an expired key exits 3 with the API detail', async () => {
    const minted = control.mintKey(server.state, { apiKey: server.demoApiKey ?? '', role: 'admin' });
    control.updateKey(server.state, minted.api_key, { expired: true });
    env(minted.api_key);
    const stderr = captureStderr();
    const code = await main(['node', 'vwh', 'sync', '--db', `${tmp.dir}/expired.duckdb`, ...common]);
    expect(code).toBe(3);
    expect(stderr()).toContain('API key has expired');
  });

  it('a project the key cannot see is reported and the others go on (exit 2)', async () => {
    env();
    const db = `${tmp.dir}/projects.duckdb`;
    const stderr = captureStderr();
    const code = await main([
      'node',
      'vwh',
      'sync',
      '--db',
      db,
      ...common,
      '--projects',
      '11111111-2222-4333-8444-555555555555,Ridgeline Bikes,' + 'x',
      '--streams',
      'projects,prompts',
    ]);
    vi.restoreAllMocks();
    expect(stderr()).toContain('11111111-2222-4333-8444-555555555555');
    expect(stderr()).toMatch(/Project not found|does not belong/);
    expect(code).toBe(2);
  });

  it('a warehouse locked by another process exits 4 naming the file and the fix', async () => {
    env();
    const db = `${tmp.dir}/locked.duckdb`;
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { DuckDBInstance } from '@duckdb/node-api';
         const i = await DuckDBInstance.create(${JSON.stringify(db)}); await i.connect();
         process.stdout.write('ready\\n'); setTimeout(() => {}, 60000);`,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
      const stderr = captureStderr();
      const code = await main(['node', 'vwh', 'sync', '--db', db, ...common]);
      expect(code).toBe(4);
      expect(stderr()).toContain(db);
      expect(stderr()).toMatch(/locked by another process/);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('several keys of a config sync in parallel into one warehouse, the team in every row', async () => {
    const second = control.mintKey(server.state, { apiKey: server.demoApiKey ?? '', role: 'viewer' });
    const keyFile = `${tmp.dir}/b.key`;
    writeFileSync(keyFile, `${second.api_key}\n`);
    process.env.VWH_KEY_A = server.demoApiKey ?? '';
    process.env.VWH_LOG_LEVEL = 'error';
    const config = `${tmp.dir}/vwh.config.json`;
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: server.url,
        rateWindowMs: WINDOW_MS,
        windowDays: 7,
        streams: ['projects', 'prompts', 'chats'],
        teams: [
          { team: 'agency-a', apiKeyEnv: 'VWH_KEY_A' },
          { team: 'agency-b', apiKeyFile: keyFile },
        ],
      }),
    );
    const db = `${tmp.dir}/multi.duckdb`;
    const code = await main([
      'node',
      'vwh',
      'sync',
      '--config',
      config,
      '--db',
      db,
      '--today',
      TODAY,
      '--log-format',
      'json',
    ]);
    expect(code).toBe(0);
    const wh = await openWarehouse(db);
    const teams = await query<{ team_id: string; n: number }>(
      wh,
      'SELECT team_id, count(*) AS n FROM raw.chats GROUP BY 1 ORDER BY 1',
    );
    const runs = await query<{ team_id: string; status: string }>(
      wh,
      'SELECT team_id, status FROM ops.sync_runs ORDER BY 1',
    );
    wh.close();
    expect(teams.map((t) => t.team_id)).toEqual(['agency-a', 'agency-b']);
    expect(teams[0]?.n).toBe(teams[1]?.n);
    expect(runs).toEqual([
      { team_id: 'agency-a', status: 'succeeded' },
      { team_id: 'agency-b', status: 'succeeded' },
    ]);
  });

  it('logs JSON lines without the key, even at debug level', async () => {
    env();
    process.env.VWH_LOG_LEVEL = 'debug';
    const stderr = captureStderr();
    const code = await main([
      'node',
      'vwh',
      'sync',
      '--db',
      `${tmp.dir}/logs.duckdb`,
      ...common,
      '--streams',
      'projects,webhooks',
    ]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const lines = stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['sync plan', 'unit done', 'sync done']));
    expect(stderr()).not.toContain(server.demoApiKey ?? 'none');
  });

  it('prints the JSON Schema of the config for editors', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => {
      text += String(c);
    });
    expect(await runSyncCommand({ configSchema: true }, out)).toBe(0);
    const schema = JSON.parse(text) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['teams', 'lookbackDays', 'db']));
  });

  it('an invalid config is a usage error naming the field', async () => {
    const config = `${tmp.dir}/bad.config.json`;
    writeFileSync(config, JSON.stringify({ lookbackDays: -1, apiKey: 'nope' }));
    const stderr = captureStderr();
    const code = await main(['node', 'vwh', 'sync', '--config', config]);
    expect(code).toBe(64);
    expect(stderr()).toMatch(/lookbackDays/);
  });
});
