/**
 * Seven consecutive nights after a backfill of the agency's world (issue 58): 10 × 50 × 365, seed 5, landed by
 * bench/land-world.ts (the product's sync over an in-process reference: fast), then each night a sync over HTTP with
 * `vwh sync`'s defaults (every stream, the lookback, the rotation, the top domains) against a reference server in a
 * child process at the bench's scaled window (70 per 2.5 s), its clock a day on each night. Per night: requests,
 * active prompts, projects, the limit (1.5 a prompt + 25 a project), wall and its rate floor (requests ÷ 70 × window).
 *
 *   node dist/bench/run.js nights          (about 12 minutes: the landing, then 7 nights of about 30 s each)
 *
 * `VWH_BENCH_NIGHTS_WORLD` (`SEED,PROJECTS,PROMPTS,DAYS`, default 5,10,50,365), `VWH_BENCH_NIGHTS` (default 7),
 * `VWH_BENCH_NIGHTS_FILE` (a warehouse the same world's backfill landed: copied, not landed again).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDays } from '../src/core/days.js';
import { silentLogger } from '../src/core/log.js';
import { silentProgress } from '../src/sync/progress.js';
import { SYNC_DEFAULTS } from '../src/sync/run.js';
import { syncTeam } from '../src/sync/team-sync.js';
import type { TeamResult } from '../src/sync/types.js';
import { Warehouse } from '../src/warehouse/warehouse.js';
import { BENCH_TODAY, landWorld, parseWorld } from './land-world.js';
import { type BenchResult, round2, startServeChild, timed, writeResult } from './lib.js';

const WINDOW_MS = 2500;
/** The limits: every night, and the mean of the nights. */
export const NIGHT_LIMIT = { perPrompt: 1.5, perProject: 25 };
export const MEAN_LIMIT = { perPrompt: 1.4, perProject: 20 };
const WALL_OVER_FLOOR = 1.1;

export interface Night {
  today: string;
  requests: number;
  planned: number;
  active_prompts: number;
  projects: number;
  prompt_requests: number;
  other_requests: number;
  limit: number;
  wall_ms: number;
  floor_ms: number;
  wall_over_floor: number;
  throttled_429: number;
  /** The plan's requests by stream (pages beyond the first aside), discovery apart. */
  by_stream: Record<string, number>;
}

/** One night's sync with `vwh sync`'s defaults against `baseUrl`, into `wh`. */
async function night(wh: Warehouse, baseUrl: string, apiKey: string, today: string, streams?: string[]) {
  const { concurrency, ...defaults } = SYNC_DEFAULTS;
  return timed(() =>
    syncTeam({
      warehouse: wh,
      teamId: 'default',
      baseUrl,
      apiKey,
      settings: { today, ...defaults },
      ...(streams ? { streams } : {}),
      concurrency,
      rate: { windowMs: WINDOW_MS },
      logger: silentLogger,
      progress: silentProgress,
    }),
  );
}

function figuresOf(today: string, team: TeamResult, wallMs: number, usable: number): Night {
  if (team.status !== 'succeeded') throw new Error(`the night of ${today} ended ${team.status}`);
  const plan = team.plan;
  const active = plan?.activePrompts ?? 0;
  const projects = plan?.streams.find((s) => s.stream === 'projects')?.parents ?? 0;
  const requests = team.counters.requests;
  const floor = Math.round((requests / usable) * WINDOW_MS);
  return {
    today,
    requests,
    planned: plan?.requests ?? 0,
    active_prompts: active,
    projects,
    prompt_requests: plan?.promptRequests ?? 0,
    other_requests: plan?.otherRequests ?? 0,
    limit: Math.floor(NIGHT_LIMIT.perPrompt * active + NIGHT_LIMIT.perProject * projects),
    wall_ms: Math.round(wallMs),
    floor_ms: floor,
    wall_over_floor: round2(wallMs / Math.max(1, floor)),
    throttled_429: team.counters.throttled429,
    by_stream: Object.fromEntries(
      (plan?.streams ?? []).filter((s) => s.requests > 0).map((s) => [s.stream, s.requests]),
    ),
  };
}

export async function main(): Promise<BenchResult> {
  const world = parseWorld(process.env.VWH_BENCH_NIGHTS_WORLD ?? '5,10,50,365');
  const count = Number(process.env.VWH_BENCH_NIGHTS ?? 7);
  const dir = mkdtempSync(join(tmpdir(), 'vwh-nights-'));
  const file = join(dir, 'w.duckdb');
  const given = process.env.VWH_BENCH_NIGHTS_FILE;
  try {
    if (given && existsSync(given)) copyFileSync(given, file);
    else await landWorld({ world, out: file });
    const server = await startServeChild(
      ['--seed', String(world.seed), '--today', BENCH_TODAY, '--demo', '--projects', String(world.projects)].concat([
        '--prompts',
        String(world.prompts),
        '--history-days',
        String(world.days),
        '--rate-window-ms',
        String(WINDOW_MS),
      ]),
    );
    const nights: Night[] = [];
    try {
      // The reference as the backfill left it: its one read that changes it (GET pending competitors), asked again
      // on the backfill's day into a scratch warehouse (as land-world's --nights does).
      const scratch = await Warehouse.open(':memory:');
      try {
        await night(scratch, server.url, server.apiKey, BENCH_TODAY, ['competitors']);
      } finally {
        scratch.close();
      }
      const wh = await Warehouse.open(file);
      try {
        for (let n = 1; n <= count; n++) {
          const moved = await fetch(`${server.url}/_reference/clock`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ advance_days: 1 }),
          });
          if (!moved.ok) throw new Error(`the reference's clock did not move: HTTP ${moved.status}`);
          const today = addDays(BENCH_TODAY, n);
          const run = await night(wh, server.url, server.apiKey, today);
          const figures = figuresOf(today, run.value, run.ms, run.value.plan?.usablePerWindow ?? 70);
          nights.push(figures);
          process.stderr.write(`nights: ${JSON.stringify({ ...figures, load: loadavg()[0]?.toFixed(2) })}\n`);
        }
      } finally {
        wh.close();
      }
    } finally {
      server.close();
    }
    const mean = (f: (n: Night) => number) => nights.reduce((s, n) => s + f(n), 0) / Math.max(1, nights.length);
    const meanRequests = mean((n) => n.requests);
    const meanLimit =
      MEAN_LIMIT.perPrompt * mean((n) => n.active_prompts) + MEAN_LIMIT.perProject * mean((n) => n.projects);
    const everyUnder = nights.every((n) => n.requests <= n.limit);
    const worstWall = Math.max(...nights.map((n) => n.wall_over_floor));
    return writeResultOf(world, count, nights, meanRequests, meanLimit, everyUnder, worstWall);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function writeResultOf(
  world: ReturnType<typeof parseWorld>,
  count: number,
  nights: Night[],
  meanRequests: number,
  meanLimit: number,
  everyUnder: boolean,
  worstWall: number,
): BenchResult {
  const label = `${world.projects}x${world.prompts}x${world.days}`;
  const result: BenchResult = {
    name: 'nights',
    description:
      `${count} consecutive nights after a backfill of ${label} (seed ${world.seed}, landed by bench/land-world.ts on ` +
      `${BENCH_TODAY}), each a sync with vwh sync's defaults over HTTP against a reference server in a child process ` +
      `(70 per ${WINDOW_MS} ms), its clock a day on each night. Limit a night: ${NIGHT_LIMIT.perPrompt} a active ` +
      `prompt + ${NIGHT_LIMIT.perProject} a project; mean limit ${MEAN_LIMIT.perPrompt} + ${MEAN_LIMIT.perProject}; ` +
      `floor = requests ÷ 70 × window. \`node dist/bench/run.js nights\`.`,
    ratios: {
      mean_requests_over_mean_limit: round2(meanRequests / meanLimit),
      worst_wall_over_floor: worstWall,
    },
    figures: {
      mean_requests: round2(meanRequests),
      mean_limit: round2(meanLimit),
      max_requests: Math.max(...nights.map((n) => n.requests)),
      min_requests: Math.min(...nights.map((n) => n.requests)),
    },
    targets: {
      every_night: {
        target: `every night <= ${NIGHT_LIMIT.perPrompt} per active prompt + ${NIGHT_LIMIT.perProject} per project`,
        met: everyUnder,
      },
      mean: {
        target: `mean <= ${MEAN_LIMIT.perPrompt} per active prompt + ${MEAN_LIMIT.perProject} per project`,
        met: meanRequests <= meanLimit,
      },
      wall: { target: `every night's wall <= ${WALL_OVER_FLOOR} x its rate floor`, met: worstWall <= WALL_OVER_FLOOR },
    },
    details: { nights },
  };
  writeResult(result);
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
