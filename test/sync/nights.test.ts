/**
 * Nights at the floor (issue 58): consecutive nights after a backfill ask at most 1.5 requests per active prompt + 25
 * per project each, 1.4 + 20 on average (the rotation spreads the derivable prompt streams and a project's overview,
 * per-domain details and chats over the nights), and what the lookback is for still lands: the answers that arrive a
 * day late are in the warehouse after the nights exactly as a backfill of the same API day lands them.
 * In process (the reference application answering the sync's client without a socket, as bench/land-world.ts does).
 */
import { describe, expect, it } from 'vitest';
import { inProcess } from '../../bench/land-world.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { control, createReference, type InProcessReference } from '../../src/reference/index.js';
import { silentProgress } from '../../src/sync/progress.js';
import { SYNC_DEFAULTS } from '../../src/sync/run.js';
import { syncTeam } from '../../src/sync/team-sync.js';
import type { TeamResult } from '../../src/sync/types.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../fixtures.js';
import { query } from './support.js';

const FIRST = '2026-03-15';

const tmp = tempDir();

function sync(reference: InProcessReference, warehouse: Warehouse, today: string): Promise<TeamResult> {
  const { concurrency, ...defaults } = SYNC_DEFAULTS;
  return syncTeam({
    warehouse,
    teamId: 'default',
    baseUrl: 'http://reference.invalid',
    apiKey: reference.demoApiKey ?? '',
    settings: { today, ...defaults },
    concurrency,
    rate: { windowMs: 1 },
    transport: inProcess(reference),
    logger: silentLogger,
    progress: silentProgress,
  });
}

/** The chats the warehouse holds, one line each (id, prompt, day), sorted. */
async function chats(warehouse: Warehouse): Promise<string[]> {
  const rows = await query<{ r: string }>(
    warehouse,
    `SELECT concat_ws(' ', id, prompt_id, CAST(chat_date AS VARCHAR)) AS r FROM raw.chats ORDER BY 1`,
  );
  return rows.map((x) => x.r);
}

// A whole rotation (7 nights) on one world; a few nights on another seed and shape (more projects than prompts each).
describe.each([
  { seed: 11, projects: 2, prompts: 8, days: 14, nights: 7 },
  { seed: 23, projects: 4, prompts: 3, days: 10, nights: 2 },
])('nights after a backfill, seed $seed, $projects × $prompts × $days', (world) => {
  it('asks at most 1.5 a prompt + 25 a project each night (1.4 + 20 on average) and lands the late answers', async () => {
    const reference = createReference({
      seed: world.seed,
      projects: world.projects,
      prompts: world.prompts,
      historyDays: world.days,
      today: FIRST,
      demo: true,
      lateFraction: 0.2,
      rateWindowMs: 1,
    });
    const warehouse = await Warehouse.open(tmp.db.replace(/\.duckdb$/, `-${world.seed}.duckdb`));
    try {
      expect((await sync(reference, warehouse, FIRST)).status).toBe('succeeded');
      const nights: Array<{ requests: number; limit: number; active: number; projects: number }> = [];
      let today = FIRST;
      for (let n = 1; n <= world.nights; n++) {
        control.advanceClock(reference.state, { days: 1 });
        today = addDays(FIRST, n);
        const night = await sync(reference, warehouse, today);
        expect(night.status).toBe('succeeded');
        const active = night.plan?.activePrompts ?? 0;
        const projects = night.plan?.streams.find((s) => s.stream === 'projects')?.parents ?? 0;
        expect(active).toBeGreaterThan(0);
        expect(projects).toBe(world.projects);
        nights.push({ requests: night.counters.requests, limit: 1.5 * active + 25 * projects, active, projects });
      }
      for (const [i, n] of nights.entries()) expect(n.requests, `night ${i + 1}`).toBeLessThanOrEqual(n.limit);
      const mean = (f: (n: (typeof nights)[number]) => number) => nights.reduce((s, n) => s + f(n), 0) / world.nights;
      expect(mean((n) => n.requests)).toBeLessThanOrEqual(1.4 * mean((n) => n.active) + 20 * mean((n) => n.projects));

      // The answers that arrived late (a fifth of each day's) are there: the nights' warehouse holds the chats a
      // backfill of the same API day holds, day for day.
      const fresh = await Warehouse.open(':memory:');
      try {
        expect((await sync(reference, fresh, today)).status).toBe('succeeded');
        const [landed, truth] = [await chats(warehouse), await chats(fresh)];
        expect(truth.length).toBeGreaterThan(50);
        expect(landed).toEqual(truth);
      } finally {
        fresh.close();
      }
    } finally {
      warehouse.close();
      reference.close();
    }
  }, 300_000);
});
