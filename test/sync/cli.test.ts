import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSyncCommand } from '../../src/cli/commands/sync.js';
import { main } from '../../src/cli/main.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { CLI_COMMON, openWarehouse, query, startWorld, tempDir, WINDOW_MS } from './support.js';

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
  vi.restoreAllMocks();
});

function env(key = server.demoApiKey ?? '') {
  process.env.VWH_API_KEY = key;
  process.env.VWH_BASE_URL = server.baseUrl;
  process.env.VWH_LOG_LEVEL = 'error';
}

const common = CLI_COMMON;

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
      { db, plan: true, today: TODAY, rateWindowMs: WINDOW_MS, logFormat: 'human' },
      out,
    );
    expect(code).toBe(0);
    expect(text).toMatch(/chats\s+\d+\s+\d+\s+0\/\d+/);
    expect(text).toMatch(/total \d+ requests, one per page expected.*floor/);
    expect(await rawRows(db)).toBe(0);
  });

  it('--plan --embedded previews the plan of the embedded demo world, without a key, landing nothing', async () => {
    // no key, no base URL: what a new user has
    delete process.env.VWH_API_KEY;
    delete process.env.VWH_BASE_URL;
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const db = `${tmp.dir}/embedded-plan.duckdb`;
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => {
      text += String(c);
    });
    const code = await runSyncCommand({ db, plan: true, embedded: true, today: TODAY, logFormat: 'human' }, out);
    err.mockRestore();
    expect(code).toBe(0);
    expect(text).toContain(`team demo: plan for ${TODAY}`);
    expect(text).toMatch(/chats\s+\d+\s+\d+\s+0\/\d+/);
    expect(process.env.VWH_API_KEY).toBeUndefined();
    expect(await rawRows(db)).toBe(0);
  });

  it('--budget-share leaves part of the window to other users of the key: the plan uses that part only', async () => {
    env();
    const usable = async (flags: { budgetShare?: number }) => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (c) => {
        text += String(c);
      });
      const code = await runSyncCommand(
        {
          db: `${tmp.dir}/share.duckdb`,
          plan: true,
          today: TODAY,
          rateWindowMs: WINDOW_MS,
          logFormat: 'human',
          ...flags,
        },
        out,
      );
      expect(code).toBe(0);
      return Number(/at (\d+) per/.exec(text)?.[1]);
    };
    const full = await usable({});
    expect(full).toBeGreaterThanOrEqual(70);
    expect(await usable({ budgetShare: 0.5 })).toBe(Math.floor(full * 0.5));
    const stderr = captureStderr();
    expect(await main(['node', 'vwh', 'sync', '--budget-share', '1.5', '--plan'])).toBe(64);
    expect(stderr()).toMatch(/budget-share/);
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

  it('several teams (several keys) of a config sync in parallel into one warehouse, the team in every row', async () => {
    // A second team of the reference with its own key, user and project (the demo team is the first).
    const state = server.state;
    const createdAt = new Date(state.sim.now() - 10 * 86_400_000).toISOString();
    const teamB = state.accounts.createTeam('Second team', 'enterprise', createdAt);
    const userB = state.accounts.createUser('second.team@example.com', 'pw-second-team', teamB.id);
    const keyB = state.accounts.mintKey(teamB.id, { userId: userB.id, createdAt }).key;
    const projectsB = state.world.demoTeam({
      seed: 8,
      projects: 1,
      promptsPerProject: 3,
      historyDays: 10,
      today: state.sim.today(),
      teamId: teamB.id,
    });
    for (const project of projectsB) state.projects.add(project);
    const keyFile = `${tmp.dir}/b.key`;
    writeFileSync(keyFile, `${keyB}\n`);
    process.env.VWH_KEY_A = server.demoApiKey ?? '';
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
    const projects = await query<{ team_id: string; id: string }>(
      wh,
      'SELECT team_id, id FROM raw.projects ORDER BY 1, 2',
    );
    const chats = await query<{ team_id: string; n: number }>(
      wh,
      'SELECT team_id, count(*) AS n FROM raw.chats GROUP BY 1 ORDER BY 1',
    );
    // Every row of every raw table names its team, and a project's rows belong to one team only.
    const teamless = await query<{ n: number }>(
      wh,
      `SELECT (SELECT count(*) FROM raw.chats WHERE team_id NOT IN ('agency-a', 'agency-b'))
            + (SELECT count(*) FROM raw.prompts WHERE team_id NOT IN ('agency-a', 'agency-b'))
            + (SELECT count(*) FROM raw.visibility_daily WHERE team_id NOT IN ('agency-a', 'agency-b')) AS n`,
    );
    const shared = await query(
      wh,
      'SELECT project_id FROM raw.chats GROUP BY project_id HAVING count(DISTINCT team_id) > 1',
    );
    const runs = await query<{ team_id: string; status: string }>(
      wh,
      'SELECT team_id, status FROM ops.sync_runs ORDER BY 1',
    );
    const budgets = await query<{ n: number }>(wh, 'SELECT count(*) AS n FROM ops.rate_budget');
    wh.close();
    expect(projects.filter((p) => p.team_id === 'agency-b').map((p) => p.id)).toEqual(projectsB.map((p) => p.id));
    expect(projects.filter((p) => p.team_id === 'agency-a')).toHaveLength(2);
    expect(chats.map((t) => t.team_id)).toEqual(['agency-a', 'agency-b']);
    expect(chats.every((t) => t.n > 0)).toBe(true);
    expect(teamless[0]?.n).toBe(0);
    expect(shared).toEqual([]);
    expect(runs).toEqual([
      { team_id: 'agency-a', status: 'succeeded' },
      { team_id: 'agency-b', status: 'succeeded' },
    ]);
    // Each key kept its own budget window.
    expect(budgets[0]?.n).toBe(2);
  });

  it('never writes the key: not in the JSON logs (debug level), any table, or the database files', async () => {
    env();
    const key = server.demoApiKey ?? '';
    expect(key.length).toBeGreaterThan(16);
    process.env.VWH_LOG_LEVEL = 'debug';
    const db = `${tmp.dir}/logs.duckdb`;
    const stderr = captureStderr();
    const code = await main(['node', 'vwh', 'sync', '--db', db, ...common, '--streams', 'projects,chats,webhooks']);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const lines = stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['sync plan', 'unit done', 'sync done']));
    expect(stderr()).not.toContain(key);
    // Every row of every table (ops.* and raw.*) as JSON text, then the bytes of the files DuckDB wrote.
    const wh = await openWarehouse(db);
    const tables = await query<{ t: string }>(
      wh,
      "SELECT schema_name || '.' || table_name AS t FROM duckdb_tables() WHERE schema_name IN ('ops', 'raw')",
    );
    expect(tables.length).toBeGreaterThan(25);
    for (const { t } of tables) {
      const rows = await query<{ j: string }>(wh, `SELECT CAST(to_json(x) AS VARCHAR) AS j FROM ${t} x`);
      for (const row of rows) expect(row.j, t).not.toContain(key);
    }
    wh.close();
    for (const file of [db, `${db}.wal`].filter((f) => existsSync(f))) {
      expect(readFileSync(file).includes(Buffer.from(key)), file).toBe(false);
    }
  });

  it('prints the JSON Schema of the config for editors', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => {
      text += String(c);
    });
    expect(await runSyncCommand({ configSchema: true }, out)).toBe(0);
    const schema = JSON.parse(text) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['teams', 'lookbackDays', 'db', 'budgetShare', 'servicesBaseUrl', 'userId']),
    );
  });

  it('teams sharing one key must split its window (rateShare) and its projects (named, the key not shown)', async () => {
    process.env.VWH_KEY_A = server.demoApiKey ?? '';
    const config = `${tmp.dir}/shared.config.json`;
    const [first, ...rest] = server.state.projects.ofTeam(server.state.demo?.teamId ?? '').map((p) => p.config.id);
    expect(first).toBeDefined();
    expect(rest.length).toBeGreaterThan(0);
    const teams = (shareA?: number, shareB?: number, projectsA?: string[], projectsB?: string[], nameB = 'shard-2') =>
      writeFileSync(
        config,
        JSON.stringify({
          baseUrl: server.url,
          teams: [
            {
              team: 'shard-1',
              apiKeyEnv: 'VWH_KEY_A',
              ...(shareA ? { rateShare: shareA } : {}),
              ...(projectsA ? { projects: projectsA } : {}),
            },
            {
              team: nameB,
              apiKeyEnv: 'VWH_KEY_A',
              ...(shareB ? { rateShare: shareB } : {}),
              ...(projectsB ? { projects: projectsB } : {}),
            },
          ],
        }),
      );
    const stderr = captureStderr();
    const args = ['node', 'vwh', 'sync', '--config', config, '--db', `${tmp.dir}/shared.duckdb`, '--plan'];
    const refused = async (pattern: RegExp) => {
      const before = stderr().length;
      expect(await main(args)).toBe(64);
      expect(stderr().slice(before)).toMatch(pattern);
    };
    teams();
    await refused(/Teams shard-1, shard-2 use the same API key: .*rateShare/);
    // both would sync every project of the key, each under its own team_id: counted twice
    teams(0.5, 0.5);
    await refused(/shard-1 lists no projects, so it would sync every project of the key again/);
    teams(0.5, 0.5, [first as string], [first as string, ...rest]);
    await refused(new RegExp(`shard-1 and shard-2 use the same API key and both list project ${first}`));
    teams(0.5, 0.5, [first as string], rest, 'shard-1');
    await refused(/Team shard-1 is configured twice/);
    expect(stderr()).not.toContain(server.demoApiKey ?? 'none');
    teams(0.5, 0.5, [first as string], rest);
    process.env.VWH_LOG_LEVEL = 'error';
    expect(await main([...args, '--today', TODAY, '--log-format', 'json'])).toBe(0);
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
