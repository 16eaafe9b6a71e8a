import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { systemClock } from '../core/clock.js';
import { isVwhError, VwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { RunCounters } from '../warehouse/run-store.js';
import { discover } from './discovery.js';
import { openTeamClient } from './team-client.js';
import { planTeam } from './team-plan.js';
import { decideStatus, INTERRUPTED, startRun } from './team-run.js';
import { HookStop } from './test-hooks.js';
import type { TeamResult, TeamSyncOptions, UnitContext } from './types.js';
import { runUnits, takeStats } from './unit-runner.js';

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
    rowsPerTable: {},
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

    const runId = options.runId ?? randomUUID();
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
    // A stop is no error (the units fetched in full landed); a fatal error stops the run, stop or not.
    if (fatal) throw fatal;
    takeStats(client, counters);
    const decided = decideStatus(result, discovery, Boolean(signal?.aborted));
    result.status = decided.status;
    await ws.runs.finish(runId, teamId, decided.status, counters, decided.error);
    progress.done(teamId, summary(result));
    return result;
  } catch (error) {
    if (error instanceof HookStop) {
      // A test hook's stop is a kill: nothing more is written, and the hook's own error goes out.
      crashed = true;
      throw error.thrown;
    }
    takeStats(client, counters);
    if (signal?.aborted) {
      // Stopped before or between the units (discovery, planning): what was recorded so far stays; interrupted.
      result.status = 'interrupted';
      if (result.runId) await ws.runs.finish(result.runId, teamId, 'interrupted', counters, INTERRUPTED);
      progress.done(teamId, summary(result));
      return result;
    }
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
    // per table, as raw.* holds them (a stream's child tables are not summed into it)
    rows: result.counters.rowsPerTable ?? {},
    rejected: result.rejectedByStream,
    unreachable: result.unreachable,
    failedUnits: result.failedUnits.slice(0, 10),
  };
}
