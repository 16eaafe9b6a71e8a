/**
 * The embedded default: with no API key configured, the nightly job runs against the reference services started
 * in this process with the seeded demo team, so a fresh machine gets a warehouse, marts, exports and a report with
 * nothing to set up and nothing leaving the machine. The rate window is scaled (1 s instead of 60 s) so the run
 * takes seconds; everything else is the production path.
 */
import { registerSecret } from '../core/errors.js';
import type { SyncConfig } from '../extract/config.js';
import { startReferenceServer } from '../reference/index.js';

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

export async function startEmbedded(world: EmbeddedWorld): Promise<EmbeddedServices> {
  const server = await startReferenceServer({
    demo: true,
    seed: world.seed,
    historyDays: world.historyDays,
    projects: world.projects,
    prompts: world.prompts,
    rateWindowMs: world.rateWindowMs,
    ...(world.today ? { today: world.today } : {}),
  });
  const apiKey = server.demoApiKey;
  if (!apiKey) {
    await server.close();
    throw new Error('the reference server started without a demo key');
  }
  registerSecret(apiKey);
  // The demo key belongs to the demo user: its id lets the team_members stream run too.
  const userId = server.state.accounts.findKey(apiKey)?.user_id ?? undefined;
  return {
    url: server.url,
    apiKey,
    ...(userId ? { userId } : {}),
    today: server.state.sim.today(),
    describe:
      `the embedded reference services at ${server.url} (demo team: ${world.projects} projects × ${world.prompts} ` +
      `prompts × ${world.historyDays} days, seed ${world.seed})`,
    close: () => server.close(),
  };
}
