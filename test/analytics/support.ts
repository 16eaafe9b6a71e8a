/**
 * A small reference world synced once (per test file) into a temp DuckDB file, for the analytics model tests:
 * the reference services on port 0 with a scaled rate window, the production sync, nothing mocked.
 */
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../src/core/log.js';
import { type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { silentProgress } from '../../src/sync/progress.js';
import { syncTeam } from '../../src/sync/team-sync.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../fixtures.js';

/** The world's current day: fixed, so the world (and every figure in it) is the same on every run. */
export const WORLD_TODAY = '2026-03-15';
/**
 * The last day a build of the world synced on WORLD_TODAY processes: the last complete API day the sync recorded
 * (src/models/horizon.ts), whatever the machine's clock says.
 */
export const WORLD_LAST_COMPLETE_DAY = '2026-03-14';
/** 2 projects × 6 prompts × 60 days × 3 providers ≈ 2,000 answers: long enough for 28-day windows. */
export const WORLD = { seed: 7, projects: 2, prompts: 6, historyDays: 60 } as const;
const WINDOW_MS = 200;

/** The dbt-like-models folder of this repository. */
export const MODELS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../dbt-like-models');

export interface SyncedWorld {
  dir: string;
  /** The warehouse file, closed: open it with Database.open. */
  dbPath: string;
  /** The reference server, still running: move its clock or change its state, then sync again. */
  server: ReferenceServer;
  apiKey: string;
  /** Syncs the world as of `today` into the (closed) warehouse file `dbPath`. */
  sync(dbPath: string, today: string): Promise<void>;
  cleanup(): Promise<void>;
}

let synced: Promise<SyncedWorld> | undefined;

/**
 * Syncs the world on first call; later calls in the same test file get the same warehouse, until its cleanup.
 * `until`: the first sync ends on that day instead of the world's today (`vwh sync --until`), as one that ran before
 * the day's answers were published: with `WORLD_LAST_COMPLETE_DAY`, the API's windows end on the build's last day.
 */
export function syncedWorld(options: { until?: string } = {}): Promise<SyncedWorld> {
  synced ??= syncWorld(WORLD, options.until).then((world) => ({
    ...world,
    // The next file in this worker process (the suite shares processes, vitest.config.ts) syncs its own.
    async cleanup() {
      synced = undefined;
      await world.cleanup();
    },
  }));
  return synced;
}

/** A demo world's shape: seed, projects, prompts per project, days of history. */
export interface WorldShape {
  seed: number;
  projects: number;
  prompts: number;
  historyDays: number;
  /** Planted own-brand changes per project (the reference's `ownShifts`); none when absent. */
  ownShifts?: number;
}

/**
 * Starts a reference world of that shape and syncs it as of WORLD_TODAY (up to `until`, else to WORLD_TODAY) into a
 * fresh warehouse file.
 */
export async function syncWorld(shape: WorldShape = WORLD, until?: string): Promise<SyncedWorld> {
  const dir = tempDir('vwh-analytics-').dir;
  const dbPath = join(dir, 'warehouse.duckdb');
  const server = await startReferenceServer({
    port: 0,
    today: WORLD_TODAY,
    demo: true,
    rateWindowMs: WINDOW_MS,
    ...shape,
  });
  const apiKey = server.demoApiKey ?? '';
  const world: SyncedWorld = {
    dir,
    dbPath,
    server,
    apiKey,
    sync: (path, today) => syncInto(server.url, apiKey, path, today),
    async cleanup() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await syncInto(server.url, apiKey, dbPath, WORLD_TODAY, undefined, until);
  } catch (error) {
    await world.cleanup();
    throw error;
  }
  return world;
}

/** Syncs the reference server at `baseUrl` as of `today` into the (closed) warehouse file `dbPath`, as team `teamId`. */
export async function syncInto(
  baseUrl: string,
  apiKey: string,
  dbPath: string,
  today: string,
  teamId = 'team-analytics',
  until?: string,
): Promise<void> {
  const warehouse = await Warehouse.open(dbPath);
  try {
    const result = await syncTeam({
      warehouse,
      teamId,
      baseUrl,
      apiKey,
      settings: {
        today,
        lookbackDays: 3,
        chunkDays: 31,
        windowDays: 30,
        topDomains: 2,
        maxSourcePages: 5,
        rotationDays: 1,
        ...(until ? { until } : {}),
      },
      concurrency: 4,
      rate: { windowMs: WINDOW_MS },
      backoff: { minMs: 5, maxMs: 50 },
      logger: silentLogger,
      progress: silentProgress,
    });
    if (result.status !== 'succeeded') throw new Error(`the test world's sync of ${today} ended ${result.status}`);
  } finally {
    warehouse.close();
  }
}
