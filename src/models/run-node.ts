/**
 * One model of a run, as named steps: skip it when its inputs are unchanged, build it (materialize, record its
 * state), audit it, and remember its inputs once its audits passed.
 */
import { dirname, resolve } from 'node:path';
import { type DayRange, eachDay } from '../core/days.js';
import type { Database } from '../warehouse/duckdb.js';
import type { Session } from '../warehouse/session.js';
import { AuditBlocked } from './audits/blocked.js';
import { runAudits } from './audits/run.js';
import { compileModel } from './compile.js';
import { reachable } from './graph.js';
import { guardHistory } from './guard.js';
import type { Horizon } from './horizon.js';
import type { DimensionKeys } from './input-keys.js';
import { formatRanges } from './intervals.js';
import { materializers } from './materialize/index.js';
import type { TimeRangeRelation } from './materialize/types.js';
import type { Relations } from './relations.js';
import { auditStatus, describeError, type NodeResult } from './results.js';

import { qualified } from './sql-text.js';
import { type ModelStateRow, replaceModelState, restatedDays, writeModelState } from './state.js';
import type { Model, Project, RunOptions } from './types.js';

/** What every model of one run shares. */
export interface NodeRun {
  db: Database;
  project: Project;
  options: RunOptions;
  runId: string;
  /** Last day incremental models process. */
  end: string;
  /** The warehouse's last complete day (`end` is it, or an earlier `--end`). */
  horizon: Horizon;
  materialize: boolean;
  audit: boolean;
  /** Whether a model whose inputs did not change may be kept as it is. */
  reuse: boolean;
  states: Map<string, ModelStateRow>;
  /** The warehouse's tables and views, kept as the run's nodes change them. */
  relations: Relations;
  /** Each reusable model's key of inputs. */
  keys: Map<string, string>;
  /** The input keys to record (ops.model_state.input_key) when the run ends: models built and audited in it. */
  inputKeys: Map<string, string>;
  dimensions: DimensionKeys;
  /** Days each time-range model wrote in this run: a time-range model downstream re-processes them too. */
  written: Map<string, DayRange[]>;
}

export async function runNode(run: NodeRun, model: Model, exec: Session): Promise<NodeResult> {
  const t0 = run.options.clock.now();
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
  const auditing = run.audit && model.config.kind !== 'ephemeral' && model.config.audits.length > 0;
  const key = run.keys.get(model.id);
  if (key && (await upToDate(exec, run.relations, model, key, run.states.get(model.id)?.input_key))) {
    result.message = 'up to date: no input changed since its last successful build';
    result.reused = true;
    result.rowsAffected = 0;
    if (model.config.kind === 'incremental_by_time_range') result.intervals = '';
  } else {
    const scope = run.materialize ? await buildModel(run, model, exec, result, auditing, t0) : undefined;
    if (!run.materialize && auditing && !run.relations.kind(model.schema, model.name)) {
      result.status = 'error';
      result.message = `${model.path}: ${model.id} is not in the warehouse yet; build it first (vwh models build --select ${model.id}).`;
    }
    if (auditing && result.status === 'success' && result.audits.length === 0) {
      result.audits = await runAudits(exec, model.id, qualified(model.schema, model.name), model.config.audits, {
        storeFailures: run.options.storeFailures ?? false,
        scope,
        view: model.config.kind === 'view',
      });
      result.status = auditStatus(result.audits);
    }
    // Only after its audits passed: a model reused later must be one whose audits would pass again.
    if (key && run.audit && result.status === 'success') run.inputKeys.set(model.id, key);
  }
  result.durationMs = performance.now() - t0hr;
  return result;
}

/**
 * Materializes the model and records its state, filling `result`; a failure (or a blocking audit of what was just
 * written) becomes the result's status. Returns the audit scope of what was written (time-range models).
 */
async function buildModel(
  run: NodeRun,
  model: Model,
  exec: Session,
  result: NodeResult,
  auditing: boolean,
  t0: number,
): Promise<string | undefined> {
  const { options, states } = run;
  const compiled = compileModel(run.project, model);
  try {
    guardHistory(run.relations, model, states.get(model.id));
    let dims: string | null = null;
    let fullRefresh = options.fullRefresh ?? false;
    if (model.config.kind === 'incremental_by_time_range') {
      dims = await run.dimensions.of(model, exec);
      const previous = states.get(model.id);
      // Every old day may read what changed: rebuilt in full (under a temporary name, like --full-refresh).
      if (run.reuse && previous && previous.dims_key !== dims) fullRefresh = true;
    }
    const auditOptions = { storeFailures: options.storeFailures ?? false };
    const state = (startDate: string | undefined): ModelStateRow => ({
      model: model.id,
      kind: model.config.kind,
      fingerprint: model.fingerprint,
      start_date: startDate ?? null,
      dims_key: dims,
    });
    // When this model's build started: incremental_by_unique_key's next window starts on this day.
    const builtAt = new Date(t0);
    // Whether the materialization recorded the state in the transaction that committed its build.
    let recorded = false;
    const out = await withConflictRetry(() => {
      recorded = false;
      return materializers[model.config.kind]({
        model,
        exec,
        relations: run.relations,
        sql: compiled.sql,
        runId: run.runId,
        clock: options.clock,
        end: run.end,
        horizon: run.horizon,
        start: options.start,
        upstreamDays: upstreamDays(run.project, model.id, run.written),
        restates: timeRangeDescendants(run.project, model.id),
        timeRangeAncestors: timeRangeAncestors(run.project, model.id),
        ...(model.config.batchRows > 0 ? { inputTables: inputTables(run.project, model.id) } : {}),
        recordState: async (startDate) => {
          await replaceModelState(exec, state(startDate), run.runId, builtAt);
          recorded = true;
        },
        lastBuiltOn: states.get(model.id)?.built_on,
        rememberedStart: states.get(model.id)?.start_date,
        fullRefresh,
        baseDir: run.db.path.startsWith(':memory:') ? process.cwd() : dirname(resolve(run.db.path)),
        ...(auditing
          ? {
              auditNew: (relation: string) => runAudits(exec, model.id, relation, model.config.audits, auditOptions),
            }
          : {}),
      });
    });
    result.rowsAffected = out.rowsAffected;
    if (out.intervals) {
      result.intervals = formatRanges(out.intervals);
      run.written.set(model.id, out.intervals);
    }
    if (out.message) result.message = out.message;
    if (fullRefresh && !options.fullRefresh) result.message = `${out.message ?? ''} (an input not cut by day changed)`;
    if (out.audits) {
      result.audits = out.audits;
      result.status = auditStatus(out.audits);
    }
    if (!recorded) await writeModelState(exec, state(out.startDate), run.runId, builtAt);
    return out.auditScope;
  } catch (error) {
    if (error instanceof AuditBlocked) {
      result.status = 'fail';
      result.audits = error.audits;
      result.message = error.message;
    } else {
      result.status = 'error';
      result.message = describeError(model.path, error, model.sqlLine, compiled);
    }
    return undefined;
  }
}

/** The days time-range ancestors of `id` wrote in this run (they finish before it starts: DAG order). */
export function upstreamDays(project: Project, id: string, written: Map<string, readonly DayRange[]>): Set<string> {
  const days = new Set<string>();
  for (const ancestor of reachable(project.graph.parents, id)) {
    for (const r of written.get(ancestor) ?? []) for (const d of eachDay(r.from, r.to)) days.add(d);
  }
  return days;
}

/** The time-range models above `id`, through models of any kind, with their time columns. */
export function timeRangeAncestors(project: Project, id: string): TimeRangeRelation[] {
  const out: TimeRangeRelation[] = [];
  for (const ancestor of reachable(project.graph.parents, id)) {
    const m = project.models.get(ancestor);
    if (m?.config.kind === 'incremental_by_time_range' && m.config.timeColumn) {
      out.push({ schema: m.schema, name: m.name, column: m.config.timeColumn });
    }
  }
  return out;
}

/**
 * The tables a model's query reads, as `schema.name`: its sources and the models it reads, and through the views and
 * ephemeral models among them, what those read. What a batch's share of its inputs is weighed by (`batch_rows`).
 */
export function inputTables(project: Project, id: string): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const visit = (modelId: string) => {
    const model = project.models.get(modelId);
    if (!model || seen.has(modelId)) return;
    seen.add(modelId);
    for (const source of model.sources) out.add(source.toLowerCase());
    for (const parentId of model.readParents) {
      const parent = project.models.get(parentId);
      if (!parent) continue;
      if (parent.config.kind === 'view' || parent.config.kind === 'ephemeral') visit(parentId);
      else out.add(`${parent.schema}.${parent.name}`.toLowerCase());
    }
  };
  visit(id);
  return [...out];
}

/** The time-range models below `id`, through models of any kind. */
export function timeRangeDescendants(project: Project, id: string): string[] {
  return [...reachable(project.graph.children, id)].filter(
    (d) => project.models.get(d)?.config.kind === 'incremental_by_time_range',
  );
}

/** Whether the model's relation holds what a build would write: same inputs as its last successful build. */
async function upToDate(
  exec: Session,
  relations: Relations,
  model: Model,
  key: string,
  recorded: string | null | undefined,
) {
  if (recorded !== key) return false;
  const kind = model.config.kind;
  // An ephemeral model has no relation to keep; an export's file may have been moved since.
  if (kind === 'ephemeral' || kind === 'export') return false;
  // Days an upstream model rewrote in a run that did not build this one (a --full-refresh records no input keys).
  if (kind === 'incremental_by_time_range') {
    const { upstream, own } = await restatedDays(exec, model.id, relations);
    if (upstream.size + own.size > 0) return false;
  }
  return relations.kind(model.schema, model.name) !== undefined;
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
