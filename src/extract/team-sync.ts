import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import { ApiClient, type BackoffOptions } from '../client/api-client.js';
import { keyIdFor } from '../client/budget-store.js';
import { RateBudget } from '../client/rate-budget.js';
import { type Clock, systemClock } from '../core/clock.js';
import { isVwhError, VwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { RunCounters } from '../warehouse/run-store.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { discover } from './discovery.js';
import { analysisWindow, planStream, type StreamPlan } from './planner.js';
import type { ProgressSink, SyncPlan, UnitProgress } from './progress.js';
import { STREAMS } from './streams/index.js';
import type { StreamDef, SyncSettings, TeamScope, Unit, UnitContext, UnitOutput } from './types.js';

/** Fetched rows waiting for the warehouse beyond which fetching pauses (a few megabytes of rows). */
const MAX_BACKLOG_ROWS = 40_000;

export interface RateOptions {
  /** Sliding window (60 000 ms in the spec; scaled down in tests). */
  windowMs?: number;
  /** Requests per window; default the standard tier (70), corrected by X-RateLimit-Limit. */
  limit?: number;
  /** Part of the window this sync may use (default 1). */
  share?: number;
}

/** Test hooks that simulate a crash (a throw of `SimulatedCrash` ends the run like a kill -9: nothing more is written). */
export interface SyncHooks {
  /** Inside the unit's transaction, after its rows and before its state: a throw rolls the unit back. */
  inTransaction?(unitNumber: number, unit: Unit): void;
  /** After a unit committed. */
  afterUnit?(unitNumber: number, unit: Unit): void;
}

export class SimulatedCrash extends Error {
  constructor(message = 'simulated crash') {
    super(message);
    this.name = 'SimulatedCrash';
  }
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

/** One team (one key): discover, plan, then run every unit, each committed with its state in one transaction. */
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
  const clock = options.clock ?? systemClock;
  const keyId = keyIdFor(options.apiKey);
  const budget = await RateBudget.load({
    store: ws.budget,
    keyId,
    clock,
    ...(options.rate?.windowMs ? { windowMs: options.rate.windowMs } : {}),
    ...(options.rate?.limit ? { limit: options.rate.limit } : {}),
    ...(options.rate?.share ? { share: options.rate.share } : {}),
  });
  const client = new ApiClient({
    baseUrl: options.baseUrl,
    ...(options.servicesBaseUrl
      ? {
          serviceBaseUrls: {
            content: options.servicesBaseUrl,
            bootstrap: options.servicesBaseUrl,
            teams: options.servicesBaseUrl,
          },
        }
      : {}),
    apiKey: options.apiKey,
    budget,
    clock,
    concurrency: options.concurrency ?? 4,
    logger: logger.child({ team: teamId }),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: options.maxRetryAfterMs } : {}),
    ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
  });
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
  const takeStats = () => {
    const stats = client.stats();
    counters.requests = stats.requests;
    counters.throttled429 = stats.rateLimited;
    counters.retries = stats.retries;
  };
  let crashed = false;
  try {
    const discovery = await discover(client, options.projects, logger, signal);
    settings = { ...settings, today: apiToday(client.apiDay(), settings.today, Boolean(options.todayFromApi), logger) };
    result.unreachable = discovery.unreachable;
    const window = analysisWindow(settings);
    const scope: TeamScope = options.userId ? { userId: options.userId } : {};
    const selected = STREAMS.filter((s) => !options.streams || options.streams.includes(s.name));
    const plans: StreamPlan[] = [];
    for (const stream of selected) {
      const state = options.fullRefresh ? new Map() : await ws.state.stateByParent(teamId, stream.name, settings.today);
      const rejectedParents = await ws.runs.rejectedParents(teamId, stream.name);
      plans.push(
        planStream(stream, stream.parents(discovery, settings, scope), state, settings, {
          fullRefresh: Boolean(options.fullRefresh),
          rejectedParents,
        }),
      );
    }
    const requests = discovery.requests + plans.reduce((sum, p) => sum + p.requests, 0);
    const promptRequests = plans
      .flatMap((p) => p.units)
      .filter((u) => u.parent.promptId !== undefined)
      .reduce((sum, u) => sum + u.estimate, 0);
    const activePrompts = discovery.projects.reduce(
      (n, p) => n + p.prompts.filter((q) => q.prompt_type === 'active').length,
      0,
    );
    const plan: SyncPlan = {
      teamId,
      today: settings.today,
      window,
      streams: plans.map((p) => ({
        stream: p.stream.name,
        units: p.units.length,
        requests: p.requests,
        parents: p.parents,
        complete: p.complete,
        deferred: p.deferred,
        ...skipReason(p.stream, scope),
      })),
      requests,
      activePrompts,
      promptRequests,
      otherRequests: requests - promptRequests,
      requestsPerActivePrompt: activePrompts > 0 ? Math.round((promptRequests / activePrompts) * 100) / 100 : 0,
      rotationDays: settings.rotationDays,
      usablePerWindow: budget.usable,
      windowMs: budget.windowMs,
      floorMs: Math.round((requests / budget.usable) * budget.windowMs),
      unreachable: discovery.unreachable,
    };
    result.plan = plan;
    progress.plan(plan);
    if (options.planOnly) return result;

    const runId = randomUUID();
    result.runId = runId;
    await ws.runs.markAbandoned(teamId);
    await ws.runs.start(runId, teamId, options.baseUrl, {
      today: settings.today,
      streams: selected.map((s) => s.name),
      projects: options.projects ?? null,
      fullRefresh: Boolean(options.fullRefresh),
      lookbackDays: settings.lookbackDays,
      since: settings.since ?? null,
      until: settings.until ?? null,
    });
    // Projects quarantined by discovery belong to this run: recorded now that it exists (partial, exit 2).
    for (const r of discovery.rejected) {
      await ws.runs.reject({
        runId,
        teamId,
        stream: 'projects',
        parentId: 'team',
        unitKey: 'discovery',
        endpoint: r.endpoint,
        payload: r.payload,
        issues: r.issues,
      });
    }
    if (discovery.rejected.length > 0) {
      counters.rejectedRows += discovery.rejected.length;
      result.rejectedByStream.projects = (result.rejectedByStream.projects ?? 0) + discovery.rejected.length;
    }
    if (options.fullRefresh)
      await ws.state.forget(
        teamId,
        selected.map((s) => s.name),
      );

    const total = plans.reduce((sum, p) => sum + p.units.length, 0);
    counters.unitsPlanned = total;
    takeStats();
    await ws.runs.record(runId, teamId, counters);
    const ctx: UnitContext = {
      client,
      teamId,
      scope,
      settings,
      window,
      ws,
      discovery,
      logger,
      ...(signal ? { signal } : {}),
    };
    const run = { team_id: teamId, _sync_run_id: runId };
    const started = Date.now();
    let fatal: unknown;
    let rowsLanded = 0;
    /** The run's counters as the batch being committed has them so far (its units enter its transaction in turn). */
    let inTransaction: RunCounters | undefined;
    const status = (): UnitProgress => {
      takeStats();
      return {
        teamId,
        stream: current,
        unitKey: '',
        done: counters.unitsDone,
        total,
        requests: counters.requests,
        budgetAvailable: budget.available(),
        usablePerWindow: budget.usable,
        waits,
        etaMs: eta(
          Date.now() - started,
          counters.unitsDone,
          total,
          Math.max(0, plan.requests - counters.requests),
          budget,
        ),
        rows: rowsLanded,
      };
    };
    let current = plans[0]?.stream.name ?? '';
    const heartbeat = setInterval(() => progress.status?.(status()), options.heartbeatMs ?? 25_000);
    heartbeat.unref?.();

    // A batch's units are marked finished, and the run's record updated, once at the end of its transaction: a
    // few statements per batch rather than four per unit (at scale those were half of the landing's time).
    let finished: Array<{ key: { teamId: string; stream: string; parentId: string }; range: Unit['range'] }> = [];
    ws.loader.setBatchWork({
      begin: () => {
        finished = [];
      },
      end: async () => {
        if (inTransaction) await ws.runs.record(runId, teamId, inTransaction);
        if (finished.length > 0) await ws.state.markFinishedMany(finished, runId, settings.today);
      },
    });

    /** Lands a fetched unit with its state; the fetch slot is already free for the next request. */
    const land = async (unit: Unit, output: UnitOutput): Promise<void> => {
      // A new unit's rows replace nothing: its loads skip the delete (the state knows none of its days is landed).
      const loads = unit.fresh ? output.loads.map(({ partition: _, ...load }) => load) : output.loads;
      try {
        let landed: RunCounters | undefined;
        await ws.loader.loadUnit(loads, { ...run, _extracted_at: new Date() }, async (counts) => {
          // Units of one batch enter the transaction in turn, each counted on top of the one before it.
          const before = inTransaction ?? counters;
          const number = before.unitsDone + 1;
          for (const r of output.rejected) {
            await ws.runs.reject({
              runId,
              teamId,
              stream: unit.stream.name,
              parentId: unit.parent.id,
              unitKey: unit.key,
              endpoint: r.endpoint,
              payload: r.payload,
              issues: r.issues,
            });
          }
          // The run's record counts this unit in the unit's own transaction (the batch's, written at its end).
          landed = afterUnit(before, unit.stream.name, counts, output.rejected.length, client.stats());
          inTransaction = landed;
          options.hooks?.inTransaction?.(number, unit);
          // A unit with rejected rows is not finished: the next sync fetches it again.
          if (output.rejected.length === 0)
            finished.push({ key: { teamId, stream: unit.stream.name, parentId: unit.parent.id }, range: unit.range });
        });
        if (fatal) return;
        const rows = (landed?.rowsPerStream[unit.stream.name] ?? 0) - (counters.rowsPerStream[unit.stream.name] ?? 0);
        if (landed) Object.assign(counters, landed);
        if (inTransaction === landed) inTransaction = undefined;
        rowsLanded += rows;
        if (output.rejected.length > 0) {
          result.rejectedByStream[unit.stream.name] =
            (result.rejectedByStream[unit.stream.name] ?? 0) + output.rejected.length;
        }
        progress.unit({ ...status(), stream: unit.stream.name, unitKey: unit.key, rows });
        options.hooks?.afterUnit?.(counters.unitsDone, unit);
      } catch (error) {
        inTransaction = undefined;
        fatal ??= error;
      }
    };

    const landings = new Set<Promise<void>>();
    const runUnit = async (unit: Unit): Promise<void> => {
      if (fatal || signal?.aborted) return;
      let output: UnitOutput;
      try {
        output = await unit.stream.fetch(ctx, unit.parent, unit.range);
      } catch (error) {
        if (isFatal(error, signal)) {
          fatal ??= error;
          return;
        }
        const message = error instanceof Error ? error.message : String(error);
        result.failedUnits.push({ unit: unit.key, error: message });
        logger.warn('unit failed; it will be retried by the next sync', { unit: unit.key, error: message });
        return;
      }
      if (fatal) return;
      const landing = land(unit, output);
      landings.add(landing);
      void landing.finally(() => landings.delete(landing));
      // Backpressure: while the warehouse is behind, fetching waits, so fetched rows never pile up in memory.
      while (ws.loader.backlogRows > MAX_BACKLOG_ROWS && landings.size > 0) await Promise.race(landings);
    };

    try {
      // One queue for every stream, in plan order: a stream's first units go out while the last ones of the stream
      // before it are still in flight or landing, so the budget never idles at a stream's end (13 such waits made
      // a small sync a fifth slower than its floor).
      const queue = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 4) });
      for (const streamPlan of plans) {
        if (streamPlan.stream.readsLanded) {
          await queue.onIdle();
          await Promise.all([...landings]);
        }
        if (fatal || signal?.aborted) break;
        for (const unit of streamPlan.units) {
          void queue.add(() => {
            current = unit.stream.name;
            return runUnit(unit);
          });
        }
      }
      await queue.onIdle();
      await Promise.all([...landings]);
    } finally {
      clearInterval(heartbeat);
    }
    if (fatal && !(signal?.aborted && !(fatal instanceof SimulatedCrash))) throw fatal;
    takeStats();
    if (signal?.aborted) {
      result.status = 'interrupted';
      await ws.runs.finish(runId, teamId, 'interrupted', counters, {
        code: 'INTERRUPTED',
        message: 'the sync was stopped',
      });
    } else {
      result.status =
        result.failedUnits.length > 0
          ? 'failed'
          : counters.rejectedRows > 0 || discovery.unreachable.length > 0
            ? 'partial'
            : 'succeeded';
      const error =
        result.failedUnits.length > 0
          ? {
              code: 'UNITS_FAILED',
              message: `${result.failedUnits.length} units failed: ${result.failedUnits[0]?.error}`,
            }
          : undefined;
      await ws.runs.finish(runId, teamId, result.status, counters, error);
    }
    progress.done(teamId, summary(result));
    return result;
  } catch (error) {
    if (error instanceof SimulatedCrash) {
      crashed = true;
      throw error;
    }
    takeStats();
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

/**
 * Time left: the pace of the units so far, but never less than the requests still planned at the key's rate (early
 * units are often answered from a full window and would promise too much).
 */
function eta(elapsedMs: number, done: number, total: number, requestsLeft: number, budget: RateBudget): number {
  const byUnits = done > 0 ? (elapsedMs / done) * (total - done) : 0;
  const byBudget = (Math.max(0, requestsLeft - budget.available()) / budget.usable) * budget.windowMs;
  return Math.max(byUnits, byBudget);
}

/** The run's counters once `stream`'s unit has landed `counts` rows and rejected `rejected`. */
function afterUnit(
  counters: RunCounters,
  stream: string,
  counts: Record<string, number>,
  rejected: number,
  stats: { requests: number; rateLimited: number; retries: number },
): RunCounters {
  const rows = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    ...counters,
    unitsDone: counters.unitsDone + 1,
    requests: stats.requests,
    throttled429: stats.rateLimited,
    retries: stats.retries,
    rowsPerStream: { ...counters.rowsPerStream, [stream]: (counters.rowsPerStream[stream] ?? 0) + rows },
    rejectedRows: counters.rejectedRows + rejected,
  };
}

function skipReason(stream: StreamDef, scope: TeamScope): { skipped?: string } {
  const reason = stream.unavailable?.(scope);
  return reason ? { skipped: reason } : {};
}

function isFatal(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  if (error instanceof SimulatedCrash) return true;
  return (
    isVwhError(error) && (error.code.startsWith('AUTH_') || error.code === 'DB_ERROR' || error.code === 'DB_LOCKED')
  );
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
