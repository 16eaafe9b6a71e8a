/** The sync tests' pieces, on test/fixtures.ts: the CLI's flags, a world with a scaled window, content of raw.*. */
import { type ChildProcess, spawn } from 'node:child_process';
import { ApiClient } from '../../src/client/api-client.js';
import { RateBudget } from '../../src/client/rate-budget.js';
import { silentLogger } from '../../src/core/log.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { prng } from '../../src/reference/world/hash.js';
import { silentProgress } from '../../src/sync/progress.js';
import { syncTeam } from '../../src/sync/team-sync.js';
import type { SyncSettings, TeamSyncOptions } from '../../src/sync/types.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir as newTempDir, referenceWorld, type TempDir, TODAY } from '../fixtures.js';

export const WINDOW_MS = 400;
/** Flags every `vwh sync` of the tests passes: the reference's day, its scaled window, JSON logs. */
export const CLI_COMMON = ['--today', TODAY, '--rate-window-ms', String(WINDOW_MS), '--log-format', 'json'];

/** `vwh sync` of the built CLI (dist/, `npm run build`) in a child against `server`: debug JSON lines on its stderr. */
export function spawnCliSync(server: ReferenceServer, db: string, args: readonly string[] = []): ChildProcess {
  return spawn(
    process.execPath,
    ['dist/src/cli/bin.js', 'sync', '--db', db, ...CLI_COMMON, '--team', 'team-demo', ...args],
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
}

/** The small world of test/fixtures.ts (2 projects × 6 prompts × 10 days), a rate window of 400 ms, late answers. */
export async function startWorld(extra: Record<string, unknown> = {}): Promise<ReferenceServer> {
  return referenceWorld({ rateWindowMs: WINDOW_MS, lateFraction: 0.2, ...extra });
}

/** A temporary folder of the sync tests (test/fixtures.ts: removed when the test file ends). */
export const tempDir = (): TempDir => newTempDir('vwh-sync-');

export function settings(today = TODAY, extra: Partial<SyncSettings> = {}): SyncSettings {
  return {
    today,
    lookbackDays: 3,
    chunkDays: 31,
    windowDays: 7,
    topDomains: 2,
    maxSourcePages: 5,
    rotationDays: 1,
    ...extra,
  };
}

export async function runSync(
  server: ReferenceServer,
  warehouse: Warehouse,
  options: Partial<TeamSyncOptions> = {},
): ReturnType<typeof syncTeam> {
  return syncTeam({
    warehouse,
    teamId: 'team-demo',
    baseUrl: server.url,
    apiKey: server.demoApiKey ?? '',
    settings: settings(),
    concurrency: 4,
    rate: { windowMs: WINDOW_MS },
    backoff: { minMs: 5, maxMs: 50 },
    logger: silentLogger,
    progress: silentProgress,
    ...options,
  });
}

export async function openWarehouse(path: string): Promise<Warehouse> {
  return Warehouse.open(path);
}

/**
 * Rows of every raw table without the run columns, sorted: what "the same warehouse" means. (Tables the sync does not
 * write, such as raw.webhook_events, have no run columns.)
 */
export async function contentOf(warehouse: Warehouse): Promise<Record<string, string[]>> {
  const ws = await warehouse.session();
  try {
    const tables = await ws.session.all<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'raw' ORDER BY 1",
    );
    const out: Record<string, string[]> = {};
    for (const { table_name } of tables) {
      const rows = await ws.session.all<{ r: string }>(
        `SELECT CAST(to_json(t) AS VARCHAR) AS r FROM (SELECT COLUMNS(c -> c NOT IN ('_sync_run_id', '_extracted_at')) FROM raw.${table_name}) t ORDER BY 1`,
      );
      out[table_name] = rows.map((x) => x.r);
    }
    return out;
  } finally {
    ws.close();
  }
}

export async function counts(warehouse: Warehouse): Promise<Record<string, number>> {
  const content = await contentOf(warehouse);
  return Object.fromEntries(Object.entries(content).map(([k, v]) => [k, v.length]));
}

/** A client of the test's own, for reading what the API serves (the truth the warehouse is compared with). */
export function truthClient(server: ReferenceServer, apiKey = server.demoApiKey ?? ''): ApiClient {
  return new ApiClient({
    baseUrl: server.url,
    apiKey,
    budget: new RateBudget({ windowMs: WINDOW_MS }),
    backoff: { minMs: 5, maxMs: 50 },
  });
}

export async function query<T extends Record<string, unknown>>(warehouse: Warehouse, sql: string): Promise<T[]> {
  const ws = await warehouse.session();
  try {
    return await ws.session.all<T>(sql);
  } finally {
    ws.close();
  }
}

/** A seeded generator (the world's mulberry32), so a failing crash or kill schedule can be replayed. */
export const rng = prng;
