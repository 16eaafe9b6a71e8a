/**
 * Unit execution: every planned unit through one queue, fetched by the client and landed by the loader with its
 * state in one transaction, with backpressure, progress, a heartbeat and the run's record kept up to date.
 */
import PQueue from 'p-queue';
import type { ApiClient } from '../client/api-client.js';
import type { RateBudget } from '../client/rate-budget.js';
import { isVwhError } from '../core/errors.js';
import type { TableLoad } from '../warehouse/load-types.js';
import type { RunCounters } from '../warehouse/run-store.js';
import type { StreamPlan } from './planner.js';
import type { ProgressSink, SyncPlan, UnitProgress } from './progress.js';
import { HookStop, runHook } from './test-hooks.js';
import type { SyncHooks, TeamResult, Unit, UnitContext, UnitOutput } from './types.js';

/**
 * Fetched rows not yet appended to the warehouse's open transaction beyond which fetching pauses. Twice a batch:
 * the next batch is ready when one is appended. Twice this held a long backfill's JS heap higher at no gain in pace
 * (docs/lab/2026-11-sync-landing-memory.md).
 */
export const MAX_BACKLOG_ROWS = 20_000;

export interface UnitRun {
  ctx: UnitContext;
  runId: string;
  plans: readonly StreamPlan[];
  plan: SyncPlan;
  budget: RateBudget;
  /** The team's result: its counters, failed units and rejected rows are updated as units land. */
  result: TeamResult;
  progress: ProgressSink;
  concurrency: number;
  heartbeatMs: number;
  /** Budget waits so far (for the progress lines). */
  waits: () => number;
  hooks: SyncHooks | undefined;
}

/** The client's request counters copied into the run's. */
export function takeStats(client: ApiClient, counters: RunCounters): void {
  const stats = client.stats();
  counters.requests = stats.requests;
  counters.throttled429 = stats.rateLimited;
  counters.retries = stats.retries;
}

/** Runs every unit of the plans; resolves to the error that stopped the run (a fatal one), or undefined. */
export async function runUnits(input: UnitRun): Promise<unknown> {
  const { ctx, runId, plans, plan, budget, result, progress, hooks } = input;
  const { client, teamId, settings, ws, logger, signal } = ctx;
  const counters = result.counters;
  const total = counters.unitsPlanned;
  const run = { team_id: teamId, _sync_run_id: runId };
  const pace = new SyncPace();
  let fatal: unknown;
  let rowsLanded = 0;
  /** The run's counters as the batch being committed has them so far (its units enter its transaction in turn). */
  let inTransaction: RunCounters | undefined;
  const status = (): UnitProgress => {
    takeStats(client, counters);
    const now = Date.now();
    pace.landed(now, counters.unitsDone);
    return {
      teamId,
      stream: current,
      unitKey: '',
      done: counters.unitsDone,
      total,
      requests: counters.requests,
      requestsPlanned: plan.requests,
      budgetAvailable: budget.available(),
      usablePerWindow: budget.usable,
      waits: input.waits(),
      etaMs: pace.eta(now, counters.unitsDone, total, Math.max(0, plan.requests - counters.requests), budget),
      rows: rowsLanded,
    };
  };
  let current = plans[0]?.stream.name ?? '';
  const heartbeat = setInterval(() => progress.status?.(status()), input.heartbeatMs);
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
  const land = async (unit: Unit, fetched: TableLoad[], rejected: UnitOutput['rejected']): Promise<void> => {
    // A new unit's rows replace nothing: its loads skip the delete (the state knows none of its days is landed).
    const loads = unit.fresh ? fetched.map(({ partition: _, ...load }) => load) : fetched;
    // The loader empties `loads` once they are appended; nothing here holds the rows until the commit.
    if (loads !== fetched) fetched.length = 0;
    try {
      let landed: RunCounters | undefined;
      await ws.loader.loadUnit(loads, { ...run, _extracted_at: new Date() }, async (counts) => {
        // Units of one batch enter the transaction in turn, each counted on top of the one before it.
        const before = inTransaction ?? counters;
        const number = before.unitsDone + 1;
        for (const r of rejected) {
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
        landed = afterUnit(before, unit.stream.name, counts, rejected.length, client.stats());
        inTransaction = landed;
        runHook(() => hooks?.inTransaction?.(number, unit));
        // A unit with rejected rows is not finished: the next sync fetches it again.
        if (rejected.length === 0)
          finished.push({ key: { teamId, stream: unit.stream.name, parentId: unit.parent.id }, range: unit.range });
      });
      if (fatal) return;
      const rows = (landed?.rowsPerStream[unit.stream.name] ?? 0) - (counters.rowsPerStream[unit.stream.name] ?? 0);
      if (landed) Object.assign(counters, landed);
      if (inTransaction === landed) inTransaction = undefined;
      rowsLanded += rows;
      if (rejected.length > 0) {
        result.rejectedByStream[unit.stream.name] = (result.rejectedByStream[unit.stream.name] ?? 0) + rejected.length;
      }
      progress.unit({ ...status(), stream: unit.stream.name, unitKey: unit.key, rows });
      runHook(() => hooks?.afterUnit?.(counters.unitsDone, unit));
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
      // Stopped (SIGINT/SIGTERM): this unit's pages did not all arrive; it is dropped and fetched again by the next
      // sync, while the units fetched in full still land.
      if (signal?.aborted) return;
      if (isFatal(error)) {
        fatal ??= error;
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const code = isVwhError(error) ? error.code : undefined;
      result.failedUnits.push({ unit: unit.key, error: message, ...(code ? { code } : {}) });
      logger.warn('unit failed; it will be retried by the next sync', { unit: unit.key, error: message, code });
      return;
    }
    // A unit fetched in full lands even once the sync is stopped: a stop loses nothing but the requests in flight.
    if (fatal) return;
    const landing = land(unit, output.loads, output.rejected);
    landings.add(landing);
    void landing.finally(() => landings.delete(landing));
    // Backpressure: while the warehouse is behind, fetching waits, so fetched rows never pile up in memory.
    await ws.loader.room(MAX_BACKLOG_ROWS);
  };

  try {
    // One queue for every stream, in plan order: a stream's first units go out while the last ones of the stream
    // before it are still in flight or landing, so the budget never idles at a stream's end (13 such waits made
    // a small sync a fifth slower than its floor).
    const queue = new PQueue({ concurrency: Math.max(1, input.concurrency) });
    // While fetches are in flight the loader's batch gathers their units and its transaction waits for them through
    // a lull; once the queue is idle (a stream that reads landed rows, or the end) it lands and commits at once.
    ws.loader.expectUnits(() => queue.size + queue.pending > 0);
    queue.on('idle', () => ws.loader.nudge());
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
    ws.loader.expectUnits(undefined);
    ws.loader.nudge();
  }
  return fatal;
}

/** Units landed before their pace is trusted for the ETA: a twentieth of the sync, at least 5 (or all of them). */
export function measuredAfter(total: number): number {
  return Math.min(total, Math.max(5, Math.ceil(total / 20)));
}

/**
 * Time left. Until enough units landed to measure a pace (`measuredAfter`), the plan's floor: the requests still
 * planned at the key's rate (the first units pay for DuckDB's first inserts and a cold connection, and their pace
 * once promised 16 minutes for a 37 s sync). Then the pace of the units landed since the first one, never less than
 * that floor (early units are often answered from a full window and would promise too little). `sinceFirstMs` is the
 * time since the first unit landed: the time before it (discovery, and the fetches that run ahead of the first
 * landing) is paid once, and counted per unit it promised 2 m 50 s for a 13 s sync.
 */
export function eta(
  sinceFirstMs: number,
  done: number,
  total: number,
  requestsLeft: number,
  budget: Pick<RateBudget, 'available' | 'usable' | 'windowMs'>,
): number {
  const byBudget = (Math.max(0, requestsLeft - budget.available()) / budget.usable) * budget.windowMs;
  if (done < measuredAfter(total) || done < 2) return byBudget;
  const byUnits = (sinceFirstMs / (done - 1)) * (total - done);
  return Math.max(byUnits, byBudget);
}

/** A sync's ETA from when its units landed: the pace is measured from the first landing on (see eta). */
export class SyncPace {
  private first: number | undefined;

  /** `done` units have landed by `at` (ms). */
  landed(at: number, done: number): void {
    if (this.first === undefined && done > 0) this.first = at;
  }

  eta(
    now: number,
    done: number,
    total: number,
    requestsLeft: number,
    budget: Pick<RateBudget, 'available' | 'usable' | 'windowMs'>,
  ): number {
    return eta(this.first === undefined ? 0 : now - this.first, done, total, requestsLeft, budget);
  }
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
  const rowsPerTable = { ...counters.rowsPerTable };
  for (const [table, n] of Object.entries(counts)) rowsPerTable[table] = (rowsPerTable[table] ?? 0) + n;
  return {
    ...counters,
    unitsDone: counters.unitsDone + 1,
    requests: stats.requests,
    throttled429: stats.rateLimited,
    retries: stats.retries,
    rowsPerStream: { ...counters.rowsPerStream, [stream]: (counters.rowsPerStream[stream] ?? 0) + rows },
    rowsPerTable,
    rejectedRows: counters.rejectedRows + rejected,
  };
}

function isFatal(error: unknown): boolean {
  if (error instanceof HookStop) return true;
  return (
    isVwhError(error) && (error.code.startsWith('AUTH_') || error.code === 'DB_ERROR' || error.code === 'DB_LOCKED')
  );
}
