import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { BackoffOptions } from '../client/api-client.js';
import { type Clock, systemClock } from '../core/clock.js';
import { isVwhError, VwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { RunCounters } from '../warehouse/run-store.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { discover } from './discovery.js';
import type { ProgressSink, SyncPlan } from './progress.js';
import { openTeamClient } from './team-client.js';
import { planTeam } from './team-plan.js';
import { decideStatus, startRun } from './team-run.js';
import type { SyncSettings, UnitContext } from './types.js';
import { runUnits, SimulatedCrash, type SyncHooks, takeStats } from './unit-runner.js';

export interface RateOptions {
  /** Sliding window (60 000 ms in the spec; scaled down in tests). */
  windowMs?: number;
  /** Requests per window; default the standard tier (70), corrected by X-RateLimit-Limit. */
  limit?: number;
  /** Part of the window this sync may use (default 1). */
  share?: number;
}

export interface TeamSyncOptions {
  warehouse: Warehouse;
  teamId: string;
  baseUrl: string;
  apiKey: string;
  /** Base URL of the second document's services (content, teams); default `baseUrl`. */
  servicesBaseUrl?: string;
  /** The team service's caller (team_members); without it that stream is skipped. */
  userId?: string;
  settings: SyncSettings;
  /**
   * `settings.today` is the local UTC date, not a day the user named: the API's day (the `Date` header of its first
   * response) replaces it. Either way the sync never goes past the API's day.
   */
  todayFromApi?: boolean;
  /** Stream names; default all. */
  streams?: readonly string[];
  projects?: readonly string[];
  fullRefresh?: boolean;
  planOnly?: boolean;
  /** Units in flight at once (default 4). */
  concurrency?: number;
  rate?: RateOptions;
  retries?: number;
  backoff?: BackoffOptions;
  timeoutMs?: number;
  /** Longest Retry-After waited for (default 5 min); a longer one fails its unit, which the next run fetches. */
  maxRetryAfterMs?: number;
  /** Largest response body read; a larger one fails its unit (default 64 MiB). */
  maxResponseBytes?: number;
  /** The client's clock (rate window, backoff). Default real time. */
  clock?: Clock;
  logger: Logger;
  progress: ProgressSink;
  signal?: AbortSignal;
  hooks?: SyncHooks;
  /** JSON progress lines at least this often (default 25 s, under the 30 s a cron log may stay silent). */
  heartbeatMs?: number;
  /** Handed the team's result as soon as it exists, so that a team that throws still leaves its counts. */
  onResult?: (result: TeamResult) => void;
}

export type TeamStatus = 'planned' | 'succeeded' | 'partial' | 'failed' | 'interrupted';

export interface TeamResult {
  teamId: string;
  runId: string | undefined;
  status: TeamStatus;
  plan: SyncPlan | undefined;
  counters: RunCounters;
  rejectedByStream: Record<string, number>;
  unreachable: Array<{ project: string; reason: string }>;
  failedUnits: Array<{ unit: string; error: string }>;
  error?: VwhError;
}

/**
 * One team (one key): build its client, discover, plan, record the run, run every unit (each committed with its
 * state in one transaction), then decide the status.
 */
export async function syncTeam(options: TeamSyncOptions): Promise<TeamResult> {
  const { warehouse, teamId, logger, progress } = options;
  let settings = options.settings;
  // The caller's signal gets one listener; every request, queue slot, wait and retry of this sync listens to a
  // signal of its own. Those are as many as the operations in flight (concurrency × layers, each removed when its
  // operation ends), not a leak, so the warning threshold of 10 does not apply to it.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const onStop = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) onStop();
  else options.signal?.addEventListener('abort', onStop, { once: true });
  const signal = options.signal ? stop.signal : undefined;
  const ws = await warehouse.session();
  const { budget, client } = await openTeamClient(options, ws.budget, options.clock ?? systemClock);
  let waits = 0;
  const offWait = client.onWait((event) => {
    waits++;
    progress.wait(teamId, event);
  });
  const counters: RunCounters = {
    unitsPlanned: 0,
    unitsDone: 0,
    requests: 0,
    throttled429: 0,
    retries: 0,
    rowsPerStream: {},
    rejectedRows: 0,
  };
  const result: TeamResult = {
    teamId,
    runId: undefined,
    status: 'planned',
    plan: undefined,
    counters,
    rejectedByStream: {},
    unreachable: [],
    failedUnits: [],
  };
  options.onResult?.(result);
  let crashed = false;
  try {
    const discovery = await discover(client, options.projects, logger, signal);
    settings = { ...settings, today: apiToday(client.apiDay(), settings.today, Boolean(options.todayFromApi), logger) };
    result.unreachable = discovery.unreachable;
    const { selected, plans, plan, scope, window } = await planTeam(ws, options, settings, discovery, budget);
    result.plan = plan;
    progress.plan(plan);
    if (options.planOnly) return result;

    const runId = randomUUID();
    result.runId = runId;
    await startRun(ws, runId, options, settings, selected, discovery, result);
    counters.unitsPlanned = plans.reduce((sum, p) => sum + p.units.length, 0);
    takeStats(client, counters);
    await ws.runs.record(runId, teamId, counters);
    const ctx: UnitContext = { client, teamId, scope, settings, window, ws, discovery, logger, signal };
    const fatal = await runUnits({
      ctx,
      runId,
      plans,
      plan,
      budget,
      result,
      progress,
      concurrency: options.concurrency ?? 4,
      heartbeatMs: options.heartbeatMs ?? 25_000,
      waits: () => waits,
      hooks: options.hooks,
    });
    if (fatal && !(signal?.aborted && !(fatal instanceof SimulatedCrash))) throw fatal;
    takeStats(client, counters);
    const decided = decideStatus(result, discovery, Boolean(signal?.aborted));
    result.status = decided.status;
    await ws.runs.finish(runId, teamId, decided.status, counters, decided.error);
    progress.done(teamId, summary(result));
    return result;
  } catch (error) {
    if (error instanceof SimulatedCrash) {
      crashed = true;
      throw error;
    }
    takeStats(client, counters);
    const vwh = isVwhError(error)
      ? error
      : new VwhError('INTERNAL', error instanceof Error ? error.message : String(error), { cause: error });
    result.status = 'failed';
    result.error = vwh;
    if (result.runId) {
      await ws.runs
        .finish(result.runId, teamId, 'failed', counters, { code: vwh.code, message: vwh.message })
        .catch(() => {});
    }
    throw vwh;
  } finally {
    options.signal?.removeEventListener('abort', onStop);
    offWait();
    if (!crashed) await client.close().catch(() => {});
    ws.close();
  }
}

/**
 * The day this sync ends on. Without --today it is the API's day, from the `Date` header of its first response (the
 * local date when there is none), with a warning when the two differ: a machine ahead of the API would otherwise
 * mark the API's future days finished and never fetch their answers. A --today after the API's day is brought back
 * to it for the same reason; one before it is a deliberate look at the past and stays.
 */
function apiToday(apiDay: string | undefined, today: string, fromApi: boolean, logger: Logger): string {
  if (apiDay === undefined || apiDay === today) return today;
  if (fromApi) {
    logger.warn("the API's day differs from this machine's UTC date; syncing up to the API's day", {
      apiDay,
      localDay: today,
    });
    return apiDay;
  }
  if (today > apiDay) {
    logger.warn("--today is after the API's day; syncing up to the API's day, never past it", {
      apiDay,
      today,
    });
    return apiDay;
  }
  return today;
}

export function summary(result: TeamResult): Record<string, unknown> {
  return {
    status: result.status,
    runId: result.runId,
    units: `${result.counters.unitsDone}/${result.counters.unitsPlanned}`,
    requests: result.counters.requests,
    throttled429: result.counters.throttled429,
    retries: result.counters.retries,
    rows: result.counters.rowsPerStream,
    rejected: result.rejectedByStream,
    unreachable: result.unreachable,
    failedUnits: result.failedUnits.slice(0, 10),
  };
}
