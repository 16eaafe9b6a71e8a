/**
 * `vwh run`'s engine: takes the run lock, closes runs a kill left open, then runs the stages in order. A stage
 * whose needs failed (or were skipped) is skipped; a stop request (SIGINT/SIGTERM) lets the stage in hand finish
 * its unit and marks the rest interrupted. Every stage's outcome, timing and counts go to ops.pipeline_runs.
 */
import { ExitCode } from '../core/errors.js';
import { tryLock } from '../core/lock-file.js';
import { withSharedInstance } from '../warehouse/duckdb.js';
import { DEFAULT_MEMORY_LIMIT, defaultThreads, duckdbOptions } from '../warehouse/resources.js';
import { closeAbandonedRuns, type StageStatus, writeLedger } from './ledger.js';
import { lockedError, lockPathFor, staleLockMs } from './lock.js';
import {
  EXIT_INTERRUPTED,
  type RunContext,
  STAGE_EXIT,
  type Stage,
  type StageName,
  type StageOutcome,
} from './stage.js';
import { whatChanged } from './stage-changes.js';

export interface PipelineResult {
  runId: string;
  /** Set when `onlyIf` found nothing to do once the lock was held (no ledger row then). */
  skipped?: string;
  status: Exclude<StageStatus, 'running' | 'skipped'>;
  exitCode: number;
  stages: Array<{ name: StageName; outcome: StageOutcome; durationMs: number }>;
}

export function newRunId(now: number): string {
  return `${new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function runPipeline(
  stages: readonly Stage[],
  context: Omit<RunContext, 'runId' | 'outcomes' | 'plan'> & {
    runId?: string;
    /**
     * Checked once the lock is held: a reason not to run (the firing was served meanwhile by another process), or
     * undefined to run. Two schedulers started together thus run the job once.
     */
    onlyIf?: () => Promise<string | undefined>;
  },
): Promise<PipelineResult> {
  const { clock, logger } = context;
  const lockPath = lockPathFor(context.dbPath);
  // The run id is made before the lock is taken and written in it: `vwh status` names the run in progress.
  const runId = context.runId ?? newRunId(clock.now());
  const taken = tryLock(lockPath, {
    command: `vwh run (${context.trigger})`,
    job: runId,
    now: () => clock.now(),
    staleAfterMs: staleLockMs(context.config),
  });
  if ('heldBy' in taken) throw lockedError(lockPath, taken.heldBy);
  if (taken.tookOver) logger.warn('took over a stale run lock', { lock: lockPath, why: taken.tookOver });
  try {
    // One DuckDB instance for the whole run: the ledger writes and the stages open the warehouse about 17 times. It
    // is bounded as the models stage is (the config's memoryLimit and threads, else vwh models build's defaults),
    // for every stage: the stages' own opens do not change it.
    const resources = {
      memoryLimit: context.config.memoryLimit ?? DEFAULT_MEMORY_LIMIT,
      threads: context.config.threads ?? defaultThreads(),
    };
    return await withSharedInstance(
      context.dbPath,
      () => runLocked(stages, { ...context, runId }),
      duckdbOptions(resources),
    );
  } finally {
    taken.lock.release();
  }
}

async function runLocked(
  stages: readonly Stage[],
  context: Parameters<typeof runPipeline>[1],
): Promise<PipelineResult> {
  const { clock, logger } = context;
  const skip = await context.onlyIf?.();
  if (skip) {
    logger.info('run not needed', { why: skip });
    return { runId: '', skipped: skip, status: 'succeeded', exitCode: ExitCode.ok, stages: [] };
  }
  const { onlyIf: _onlyIf, ...rest } = context;
  const ctx: RunContext = {
    ...rest,
    runId: context.runId ?? newRunId(clock.now()),
    outcomes: new Map(),
    plan: stages.map((s) => s.name),
  };
  const abandoned = await closeAbandonedRuns(ctx.dbPath, new Date(clock.now()));
  if (abandoned > 0) logger.warn('runs killed before their end are now marked interrupted', { rows: abandoned });
  const started = clock.now();
  // A row says `running` while its run or stage works: `vwh status` shows where a run is, and a kill leaves it marked
  const running = (stage: string, at: number) =>
    writeLedger(ctx.dbPath, {
      runId: ctx.runId,
      stage,
      trigger: ctx.trigger,
      startedAt: new Date(at),
      endedAt: null,
      status: 'running',
      durationMs: null,
      exitCode: null,
      counts: null,
      error: null,
    });
  const runRow = { runId: ctx.runId, stage: 'run', trigger: ctx.trigger, startedAt: new Date(started) };
  await running('run', started);
  logger.info('run started', { run_id: ctx.runId, trigger: ctx.trigger, stages: stages.map((s) => s.name) });
  const results: PipelineResult['stages'] = [];
  for (const stage of stages) {
    const at = clock.now();
    if (!ctx.stop.aborted) await running(stage.name, at);
    const outcome = await runStage(stage, ctx);
    const durationMs = clock.now() - at;
    ctx.outcomes.set(stage.name, outcome);
    results.push({ name: stage.name, outcome, durationMs });
    await writeLedger(ctx.dbPath, {
      runId: ctx.runId,
      stage: stage.name,
      trigger: ctx.trigger,
      startedAt: new Date(at),
      endedAt: new Date(at + durationMs),
      status: outcome.status,
      durationMs,
      exitCode: outcome.status === 'failed' ? (outcome.exitCode ?? STAGE_EXIT[stage.name]) : null,
      counts: outcome.counts ?? null,
      error: outcome.error ?? null,
    });
    const log = outcome.status === 'failed' ? logger.error : outcome.status === 'succeeded' ? logger.info : logger.warn;
    // A person reads what the stage changed in a few words (the run's summary lists the rest, once); a program
    // gets every count.
    const human = logger.format === 'human';
    const changed = human && outcome.counts ? whatChanged(stage.name, outcome.counts, outcome.status)[0] : undefined;
    log(`stage ${stage.name} ${outcome.status}${changed ? `: ${changed.replace(/:$/, '')}` : ''}`, {
      run_id: ctx.runId,
      stage: stage.name,
      ms: durationMs,
      // Conditional spreads: the text log format prints an undefined field as key=undefined.
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.counts && !human ? { counts: outcome.counts } : {}),
    });
  }
  const { status, exitCode } = summarize(results);
  const ended = clock.now();
  const failed = results.filter((r) => r.outcome.status === 'failed').map((r) => r.name);
  await writeLedger(ctx.dbPath, {
    ...runRow,
    endedAt: new Date(ended),
    status,
    durationMs: ended - started,
    exitCode,
    counts: { stages: Object.fromEntries(results.map((r) => [r.name, r.outcome.status])) },
    error: failed.length ? `failed: ${failed.join(', ')}` : null,
  });
  logger.info('run ended', { run_id: ctx.runId, status, exit_code: exitCode, ms: ended - started });
  return { runId: ctx.runId, status, exitCode, stages: results };
}

async function runStage(stage: Stage, ctx: RunContext): Promise<StageOutcome> {
  if (ctx.stop.aborted) return { status: 'interrupted', error: 'stopped before this stage (SIGINT/SIGTERM)' };
  const unmet = stage.needs.filter((n) => {
    const status = ctx.outcomes.get(n)?.status;
    return status !== undefined && status !== 'succeeded' && status !== 'partial';
  });
  if (unmet.length) {
    return {
      status: 'skipped',
      error: `needs ${unmet.map((n) => `${n} (${ctx.outcomes.get(n)?.status})`).join(', ')}`,
    };
  }
  try {
    return await stage.run(ctx);
  } catch (error) {
    const e = error as { message?: string; code?: string; exitCode?: number };
    const message = `${e.message ?? String(error)}${e.code ? ` [${e.code}]` : ''}`;
    const exitCode = e.exitCode === ExitCode.usage || e.exitCode === ExitCode.dbLocked ? e.exitCode : undefined;
    return { status: 'failed', error: message, exitCode: exitCode ?? STAGE_EXIT[stage.name] };
  }
}

/** The run's status and exit code: the first failed stage decides; an interrupted run exits 130; partial is 2. */
export function summarize(
  stages: ReadonlyArray<{ name: StageName; outcome: StageOutcome }>,
): Pick<PipelineResult, 'status' | 'exitCode'> {
  const firstFailed = stages.find((s) => s.outcome.status === 'failed');
  if (stages.some((s) => s.outcome.status === 'interrupted'))
    return { status: 'interrupted', exitCode: EXIT_INTERRUPTED };
  if (firstFailed) {
    return { status: 'failed', exitCode: firstFailed.outcome.exitCode ?? STAGE_EXIT[firstFailed.name] };
  }
  if (stages.some((s) => s.outcome.status === 'partial')) return { status: 'partial', exitCode: ExitCode.partial };
  return { status: 'succeeded', exitCode: ExitCode.ok };
}
