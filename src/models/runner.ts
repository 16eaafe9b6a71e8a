import { dirname, resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import { addDays, type DayRange, eachDay, msToDay } from '../core/days.js';
import type { Logger } from '../core/log.js';
import { quoteIdent } from '../core/sql.js';
import type { Database } from '../warehouse/duckdb.js';
import { AuditBlocked } from './audits/blocked.js';
import { FAILURES_SCHEMA, runAudits } from './audits/run.js';
import { runSingularTest } from './audits/singular.js';
import { compileModel } from './compile.js';
import { Executor, relationKind } from './executor.js';
import { DimensionKeys, inputKeys, sourcesOf, sourceVersions } from './freshness.js';
import { reachable } from './graph.js';
import { guardHistory } from './guard.js';
import { formatRanges, sqlTimestamp } from './intervals.js';
import { createMacros } from './macros.js';
import { materializers } from './materialize/index.js';
import { auditStatus, describeError, type NodeResult, type RunResults, report } from './results.js';
import { schedule } from './schedule.js';
import { selectModels } from './selection.js';
import { qualified } from './sql-text.js';
import { ensureState, readModelStates, recordRuns, writeInputKey, writeModelState } from './state.js';
import type { Model, Project, SingularTest } from './types.js';

export type { NodeResult, NodeStatus, RunResults } from './results.js';
export { exitCodeFor } from './results.js';

export interface RunOptions {
  command: 'build' | 'run' | 'test';
  select?: string[];
  exclude?: string[];
  /** Last day incremental models process (inclusive); default yesterday by the clock. */
  end?: string;
  start?: string;
  fullRefresh?: boolean;
  /** Models built at the same time, each on its own connection. */
  threads?: number;
  storeFailures?: boolean;
  clock: Clock;
  logger: Logger;
}

/** `build` = models then their audits; `run` = models only; `test` = audits and singular tests on what exists. */
export async function runProject(db: Database, project: Project, options: RunOptions): Promise<RunResults> {
  const started = options.clock.now();
  const runId = `${new Date(started).toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${Math.random().toString(36).slice(2, 8)}`;
  const main = new Executor(db.connection);
  await ensureState(main);
  await createMacros(project.macros, (sql) => main.run(sql));
  const states = await readModelStates(main);
  const selected = selectModels(project, options.select ?? [], options.exclude ?? [], states);
  const order = project.graph.order.filter((id) => selected.has(id));
  const materialize = options.command !== 'test';
  const audit = options.command !== 'run';
  const end = options.end ?? addDays(msToDay(options.clock.now()), -1);
  const results = new Map<string, NodeResult>();
  // A full refresh or a backfill rebuilds on purpose, and `test` builds nothing: only other builds reuse.
  const reuse = materialize && !options.fullRefresh && !options.start;
  const versions = reuse ? await sourceVersions(main, sourcesOf(project, order)) : new Map<string, string>();
  const keys = reuse ? inputKeys(project, versions, end) : new Map<string, string>();
  const dimensions = new DimensionKeys(project, versions);

  // Schemas are created up front: two connections creating the same schema at once conflict.
  for (const schema of new Set(order.map((id) => project.models.get(id)?.schema))) {
    if (schema && materialize) await main.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  }
  const storing =
    options.storeFailures || order.some((id) => project.models.get(id)?.config.audits.some((a) => a.storeFailures));
  if (audit && storing) await main.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(FAILURES_SCHEMA)}`);
  const threads = Math.max(1, options.threads ?? 1);
  const executors = [main];
  for (let i = 1; i < threads; i++) executors.push(new Executor(await db.connect()));

  // Days each time-range model wrote in this run: a time-range model downstream re-processes them too.
  const written = new Map<string, DayRange[]>();
  const runNode = async (model: Model, exec: Executor): Promise<NodeResult> => {
    const t0 = options.clock.now();
    const t0hr = performance.now();
    const result: NodeResult = {
      id: model.id,
      type: 'model',
      kind: model.config.kind,
      path: model.path,
      status: 'success',
      startedAt: new Date(t0).toISOString(),
      durationMs: 0,
      rowsAffected: null,
      audits: [],
    };
    let scope: string | undefined;
    const auditing = audit && model.config.kind !== 'ephemeral' && model.config.audits.length > 0;
    const auditOptions = { storeFailures: options.storeFailures ?? false };
    const key = keys.get(model.id);
    if (key && (await upToDate(exec, model, key, states.get(model.id)?.input_key))) {
      result.message = 'up to date: no input changed since its last successful build';
      result.rowsAffected = 0;
      if (model.config.kind === 'incremental_by_time_range') result.intervals = '';
      result.durationMs = performance.now() - t0hr;
      return result;
    }
    let dims: string | null = null;
    let fullRefresh = options.fullRefresh ?? false;
    if (materialize) {
      const compiled = compileModel(project, model);
      try {
        await guardHistory(exec, model, states.get(model.id));
        if (model.config.kind === 'incremental_by_time_range') {
          dims = await dimensions.of(model, exec);
          const previous = states.get(model.id);
          // Every old day may read what changed: rebuilt in full (under a temporary name, like --full-refresh).
          if (reuse && previous && previous.dims_key !== dims) fullRefresh = true;
        }
        const out = await withConflictRetry(() =>
          materializers[model.config.kind]({
            model,
            exec,
            sql: compiled.sql,
            runId,
            clock: options.clock,
            end,
            start: options.start,
            upstreamDays: upstreamDays(project, model.id, written),
            ...(states.get(model.id)?.built_on ? { lastBuiltOn: states.get(model.id)?.built_on as string } : {}),
            fullRefresh,
            baseDir: db.path.startsWith(':memory:') ? process.cwd() : dirname(resolve(db.path)),
            ...(auditing
              ? {
                  auditNew: (relation: string) =>
                    runAudits(exec, model.id, relation, model.config.audits, auditOptions),
                }
              : {}),
          }),
        );
        result.rowsAffected = out.rowsAffected;
        if (out.intervals) {
          result.intervals = formatRanges(out.intervals);
          written.set(model.id, out.intervals);
        }
        if (out.message) result.message = out.message;
        if (fullRefresh && !options.fullRefresh)
          result.message = `${out.message ?? ''} (an input not cut by day changed)`;
        scope = out.auditScope;
        if (out.audits) {
          result.audits = out.audits;
          result.status = auditStatus(out.audits);
        }
        await writeModelState(
          exec,
          {
            model: model.id,
            kind: model.config.kind,
            fingerprint: model.fingerprint,
            start_date: out.startDate ?? null,
            dims_key: dims,
          },
          runId,
          // When this model's build started: incremental_by_unique_key's next window starts on this day.
          sqlTimestamp(t0),
        );
      } catch (error) {
        if (error instanceof AuditBlocked) {
          result.status = 'fail';
          result.audits = error.audits;
          result.message = error.message;
        } else {
          result.status = 'error';
          result.message = describeError(model.path, error, model.sqlLine, compiled);
        }
      }
    }
    if (!materialize && auditing && !(await relationKind(exec, model.schema, model.name))) {
      result.status = 'error';
      result.message = `${model.path}: ${model.id} is not in the warehouse yet; build it first (vwh models build --select ${model.id}).`;
    }
    if (auditing && result.status === 'success' && result.audits.length === 0) {
      result.audits = await runAudits(exec, model.id, qualified(model.schema, model.name), model.config.audits, {
        ...auditOptions,
        ...(scope ? { scope } : {}),
      });
      result.status = auditStatus(result.audits);
    }
    // Only after its audits passed: a model reused later must be one whose audits would pass again.
    if (key && audit && result.status === 'success') await writeInputKey(exec, model.id, key);
    result.durationMs = performance.now() - t0hr;
    return result;
  };

  await schedule(order, project, executors, results, runNode, options.logger);

  if (audit) {
    for (const test of project.tests) {
      if (!test.parents.some((p) => selected.has(p)) && selected.size !== project.models.size) continue;
      const missing = await missingParent(main, project, test.parents);
      const result = missing
        ? skippedTest(test, `skipped: ${missing} is not in the warehouse yet (vwh models build --select ${missing})`)
        : await runSingularTest(main, project, test, results, options.storeFailures ?? false);
      results.set(test.id, result);
      report(options.logger, result);
    }
  }
  await recordRuns(
    main,
    [...results.values()].map((result) => ({
      run_id: runId,
      node: result.id,
      node_type: result.type,
      status: result.status,
      started_at: sqlTimestamp(Date.parse(result.startedAt)),
      finished_at: sqlTimestamp(Date.parse(result.startedAt) + result.durationMs),
      duration_ms: result.durationMs,
      rows_affected: result.rowsAffected,
      intervals: result.intervals ?? null,
      message: result.message ?? null,
    })),
  );
  for (const exec of executors.slice(1)) exec.connection.closeSync();
  return {
    runId,
    command: options.command,
    startedAt: new Date(started).toISOString(),
    elapsedMs: options.clock.now() - started,
    results: [...results.values()],
  };
}

/** The days time-range ancestors of `id` wrote in this run (they finish before it starts: DAG order). */
export function upstreamDays(project: Project, id: string, written: Map<string, readonly DayRange[]>): Set<string> {
  const days = new Set<string>();
  for (const ancestor of reachable(project.graph.parents, id)) {
    for (const r of written.get(ancestor) ?? []) for (const d of eachDay(r.from, r.to)) days.add(d);
  }
  return days;
}

/** Whether the model's relation holds what a build would write: same inputs as its last successful build. */
async function upToDate(exec: Executor, model: Model, key: string, recorded: string | null | undefined) {
  if (recorded !== key) return false;
  const kind = model.config.kind;
  // An ephemeral model has no relation to keep; an export's file may have been moved since.
  if (kind === 'ephemeral' || kind === 'export') return false;
  return (await relationKind(exec, model.schema, model.name)) !== undefined;
}

/**
 * DuckDB's optimistic concurrency can refuse a transaction whose catalog changes race another connection's
 * ("write-write conflict"); the materializations are safe to repeat, so such a model is tried again.
 */
async function withConflictRetry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      if (i >= attempts || !/conflict/i.test((error as Error).message)) throw error;
    }
  }
}

/**
 * The first parent of a singular test that is not in the warehouse (an ephemeral parent is inlined, so it counts
 * as present). A test selected through one parent must not fail because another was never built.
 */
async function missingParent(exec: Executor, project: Project, parents: readonly string[]): Promise<string | null> {
  for (const id of parents) {
    const model = project.models.get(id);
    if (!model || model.config.kind === 'ephemeral') continue;
    if (!(await relationKind(exec, model.schema, model.name))) return id;
  }
  return null;
}

function skippedTest(test: SingularTest, message: string): NodeResult {
  return {
    id: test.id,
    type: 'test',
    path: test.path,
    rowsAffected: null,
    audits: [],
    status: 'skipped',
    startedAt: new Date().toISOString(),
    durationMs: 0,
    message,
  };
}
