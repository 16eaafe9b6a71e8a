/**
 * The embedded default: with no API key configured, the nightly job runs against the reference services started
 * in this process with the seeded demo team, so a fresh machine gets a warehouse, marts, exports and a report with
 * nothing to set up and nothing leaving the machine. The rate window is scaled (1 s instead of 60 s) so the run
 * takes seconds; everything else is the production path.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { SyncConfig } from '../core/config.js';
import { dayDiff, isCalendarDay, msToDay } from '../core/days.js';
import { registerSecret, VwhError } from '../core/errors.js';
import { writeFileAtomic } from '../export/paths.js';
import type { ReferenceServer } from '../reference/index.js';
import { anchorPathOf } from './paths.js';

export interface EmbeddedWorld {
  seed: number;
  historyDays: number;
  projects: number;
  prompts: number;
  rateWindowMs: number;
  /** The simulated day (default: today, UTC). */
  today?: string;
}

export const DEMO_WORLD: EmbeddedWorld = { seed: 42, historyDays: 90, projects: 3, prompts: 12, rateWindowMs: 1000 };

/** No key anywhere (environment, key file, teams of the config) and no API address: run on the embedded world. */
export function wantsEmbedded(config: SyncConfig, flags: { keyFile?: string; baseUrl?: string }): boolean {
  return (
    !config.teams &&
    !process.env.VWH_API_KEY?.trim() &&
    !flags.keyFile &&
    !flags.baseUrl &&
    !process.env.VWH_BASE_URL &&
    !config.baseUrl
  );
}

export interface EmbeddedServices {
  url: string;
  apiKey: string;
  userId?: string;
  today: string;
  describe: string;
  close(): Promise<void>;
}

/** What `<warehouse>.embedded-world.json` holds: the world a warehouse was first filled from, and its first day. */
interface WorldAnchor {
  seed: number;
  historyDays: number;
  projects: number;
  prompts: number;
  origin: string;
}

/**
 * What a sync on the embedded services is given: their address, the demo team, their simulated day, the world's rate
 * window and the team service's user. The key goes through VWH_API_KEY (`withEmbeddedKey`), as the user's would.
 */
export function embeddedSyncOptions(
  services: EmbeddedServices,
  world: EmbeddedWorld,
  asked: { team?: string; rateWindowMs?: number },
): { baseUrl: string; team: string; today: string; rateWindowMs: number; userId?: string } {
  return {
    baseUrl: services.url,
    team: asked.team ?? 'demo',
    today: services.today,
    rateWindowMs: asked.rateWindowMs ?? world.rateWindowMs,
    ...(services.userId ? { userId: services.userId } : {}),
  };
}

/** Runs `fn` with VWH_API_KEY set to the embedded services' key, then puts the user's environment back. */
export async function withEmbeddedKey<T>(services: EmbeddedServices, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.VWH_API_KEY;
  process.env.VWH_API_KEY = services.apiKey;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.VWH_API_KEY;
    else process.env.VWH_API_KEY = previous;
  }
}

/** A warehouse that does not exist yet starts a world of its own, whatever an old anchor beside it says. */
function anchorFor(dbPath: string, world: EmbeddedWorld): WorldAnchor | undefined {
  return existsSync(dbPath) ? readAnchor(anchorPathOf(dbPath), world) : undefined;
}

/**
 * The anchor beside a warehouse: undefined when there is none or it is another world's (a new world starts); a file
 * that is not an anchor (damaged, or another program's output) is refused rather than read as absent, which would
 * start the world afresh under a warehouse that holds the old one's days.
 */
function readAnchor(path: string, world: EmbeddedWorld): WorldAnchor | undefined {
  if (!existsSync(path)) return undefined;
  let a: WorldAnchor;
  try {
    a = JSON.parse(readFileSync(path, 'utf8')) as WorldAnchor;
  } catch {
    throw damagedAnchor(path);
  }
  const numbers = [a?.seed, a?.historyDays, a?.projects, a?.prompts];
  if (!numbers.every(Number.isInteger) || typeof a.origin !== 'string' || !isCalendarDay(a.origin)) {
    throw damagedAnchor(path);
  }
  const same =
    a.seed === world.seed &&
    a.historyDays === world.historyDays &&
    a.projects === world.projects &&
    a.prompts === world.prompts;
  return same ? a : undefined;
}

function damagedAnchor(path: string): VwhError {
  return new VwhError(
    'USAGE',
    `${path} is not an anchor vwh wrote (JSON with seed, historyDays, projects, prompts and origin): it keeps the ` +
      'first day of the demo world this warehouse was filled from. Restore it from a backup, or remove it together ' +
      'with the warehouse to start the demo afresh (removed alone, the world would restart today under days of the old one).',
  );
}

/**
 * The demo world is laid out backwards from its first simulated day (history starts `historyDays` before it), so a
 * world started on each night's own day would be another world every night: yesterday's answers would change under
 * the warehouse and the reconciliation with the API's figures would fail. With the warehouse's path (the nightly job
 * passes it) the world keeps the first night's day as its origin, in `<warehouse>.embedded-world.json`, and its clock
 * is moved forward to the night's day, as the real service's days follow each other.
 */
export async function startEmbedded(world: EmbeddedWorld, dbPath?: string): Promise<EmbeddedServices> {
  const today = world.today ?? msToDay(Date.now());
  const anchor = dbPath ? anchorFor(dbPath, world) : undefined;
  const origin = anchor && anchor.origin <= today ? anchor.origin : today;
  // The reference (its world, hono and the services' routes) is loaded here, not with the nightly job that imports
  // this file: a run against a real API never needs it.
  const { startReferenceServer } = await import('../reference/index.js');
  const server = await startReferenceServer({
    demo: true,
    seed: world.seed,
    historyDays: world.historyDays,
    projects: world.projects,
    prompts: world.prompts,
    rateWindowMs: world.rateWindowMs,
    today: origin,
  });
  try {
    return await describeServices(server, world, origin, today, dbPath && !anchor ? dbPath : undefined);
  } catch (error) {
    // a server left listening would keep the process alive after the error is reported
    await server.close();
    throw error;
  }
}

/** The started server moved to the night's day, its anchor written beside a new warehouse (`anchorDb`), described. */
async function describeServices(
  server: ReferenceServer,
  world: EmbeddedWorld,
  origin: string,
  today: string,
  anchorDb: string | undefined,
): Promise<EmbeddedServices> {
  if (origin < today) {
    const { control } = await import('../reference/index.js');
    control.advanceClock(server.state, { days: dayDiff(origin, today) });
  }
  if (anchorDb) {
    const fresh: WorldAnchor = {
      seed: world.seed,
      historyDays: world.historyDays,
      projects: world.projects,
      prompts: world.prompts,
      origin,
    };
    writeFileAtomic(anchorPathOf(anchorDb), `${JSON.stringify(fresh, null, 2)}\n`);
  }
  const apiKey = server.demoApiKey;
  if (!apiKey) throw new Error('the reference server started without a demo key');
  registerSecret(apiKey);
  // The demo key belongs to the demo user: its id lets the team_members stream run too.
  const userId = server.state.accounts.findKey(apiKey)?.user_id ?? undefined;
  return {
    url: server.url,
    apiKey,
    userId,
    today: server.state.sim.today(),
    describe:
      `the embedded reference services at ${server.url} (demo team: ${world.projects} projects × ${world.prompts} ` +
      `prompts × ${world.historyDays} days, seed ${world.seed})`,
    close: () => server.close(),
  };
}
