import type { Logger } from '../core/log.js';
import type { AuditOutcome } from './audits/run.js';
import type { CompiledSql } from './compile.js';
import type { Horizon } from './horizon.js';
import { shiftLine } from './project.js';
import type { Model, ModelKind } from './types.js';

export type NodeStatus = 'success' | 'warn' | 'fail' | 'error' | 'skipped';

export interface NodeResult {
  id: string;
  type: 'model' | 'test';
  kind?: ModelKind;
  path: string;
  /** success; warn (a warn audit failed); fail (an error audit failed); error (the SQL failed); skipped (upstream). */
  status: NodeStatus;
  startedAt: string;
  durationMs: number;
  rowsAffected: number | null;
  intervals?: string;
  /** Not built: no input changed since its last successful build (the previous table is kept). */
  reused?: boolean;
  message?: string;
  audits: AuditOutcome[];
}

export interface RunResults {
  runId: string;
  command: string;
  startedAt: string;
  elapsedMs: number;
  /** The last day time-range models processed, and where it came from. */
  horizon: Horizon;
  results: NodeResult[];
}

export function auditStatus(audits: AuditOutcome[]): NodeStatus {
  if (audits.some((a) => a.status === 'fail' || (a.status === 'error' && a.severity === 'error'))) return 'fail';
  if (audits.some((a) => a.status === 'warn' || a.status === 'error')) return 'warn';
  return 'success';
}

export function blocks(status: NodeStatus | undefined): boolean {
  return status === 'error' || status === 'fail' || status === 'skipped';
}

/** The result of a model that did not run: `skipped` (an upstream failed) or `error` (it could not start). */
export function skippedResult(model: Model, message: string, status: 'skipped' | 'error' = 'skipped'): NodeResult {
  return {
    id: model.id,
    type: 'model',
    kind: model.config.kind,
    path: model.path,
    status,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    rowsAffected: null,
    message,
    audits: [],
  };
}

/**
 * A model's error as a person needs it: the file, the line in the file when DuckDB gives one, DuckDB's words. A line
 * inside an inlined ephemeral model names that model's file instead.
 */
export function describeError(
  path: string,
  error: unknown,
  sqlLine: number,
  compiled: Pick<CompiledSql, 'lineOffset' | 'inlined'>,
): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = Number(/LINE (\d+):/.exec(message)?.[1] ?? Number.NaN);
  const region = compiled.inlined?.find((r) => line >= r.first && line <= r.last);
  if (region) {
    const inFile = message.replace(/LINE (\d+):/, `LINE ${line - region.first + region.sqlLine} of ${region.path}:`);
    return `${path}: in the ephemeral model ${region.path} pasted into it: ${inFile}`;
  }
  const shifted = message.replace(
    /LINE (\d+):/,
    (_m, n: string) => `LINE ${Math.max(1, Number(n) - compiled.lineOffset)}:`,
  );
  return `${path}: ${shiftLine(shifted, sqlLine)}`;
}

/**
 * The audits of a node that did not pass, `name:status(failing rows)` each (an audit that could not run says why: the
 * first line of DuckDB's message, not a meaningless count); null when all passed.
 */
export function failingAudits(result: NodeResult): string | null {
  const failing = result.audits.filter((a) => a.status !== 'pass');
  if (failing.length === 0) return null;
  return failing
    .map((a) =>
      a.status === 'error'
        ? `${a.name}:error(${a.message?.split('\n')[0] ?? ''})`
        : `${a.name}:${a.status}(${a.failures})`,
    )
    .join(' ');
}

export function report(logger: Logger, result: NodeResult): void {
  // On a terminal the line itself says node and status; JSON lines carry them as fields.
  const fields: Record<string, unknown> = logger.format === 'json' ? { node: result.id, status: result.status } : {};
  if (result.kind) fields.kind = result.kind;
  if (result.rowsAffected !== null) fields.rows = result.rowsAffected;
  if (result.intervals) fields.intervals = result.intervals;
  fields.ms = Math.round(result.durationMs);
  const audits = failingAudits(result);
  if (audits) fields.audits = audits;
  if (result.message) fields.message = result.message;
  const line = `${result.status.toUpperCase().padEnd(7)} ${result.id}`;
  if (result.status === 'error' || result.status === 'fail') logger.error(line, fields);
  else if (result.status === 'warn' || result.status === 'skipped') logger.warn(line, fields);
  else logger.info(line, fields);
}

/** 2 (partial) when a model failed or an audit of severity error failed; 0 otherwise. */
export function exitCodeFor(results: RunResults): 0 | 2 {
  return results.results.some((r) => r.status === 'error' || r.status === 'fail') ? 2 : 0;
}

/** dbt's closing tally: PASS, WARN, ERROR (errors and failures), SKIP and TOTAL. */
export interface Tally {
  pass: number;
  warn: number;
  error: number;
  skip: number;
  total: number;
}

/** `Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3`, as dbt ends a run. */
export function doneLine(t: Tally): string {
  return `Done. PASS=${t.pass} WARN=${t.warn} ERROR=${t.error} SKIP=${t.skip} TOTAL=${t.total}`;
}

/**
 * What `vwh models test` checked, one entry per audit (`not_null(date) on marts.x`) and per singular test, and the
 * tally over them; a model that could not be tested (missing, or skipped) counts as an error or a skip.
 */
export function testOutcomes(results: readonly NodeResult[]): {
  checks: Array<{ status: 'PASS' | 'WARN' | 'FAIL' | 'ERROR' | 'SKIP'; name: string; detail?: string }>;
  tally: Tally;
} {
  const checks: Array<{ status: 'PASS' | 'WARN' | 'FAIL' | 'ERROR' | 'SKIP'; name: string; detail?: string }> = [];
  for (const r of results) {
    if (r.type === 'test') {
      const status =
        r.status === 'success' ? 'PASS' : r.status === 'skipped' ? 'SKIP' : r.status === 'warn' ? 'WARN' : 'FAIL';
      checks.push({ status, name: r.id, ...(r.message && status !== 'PASS' ? { detail: r.message } : {}) });
      continue;
    }
    if (r.audits.length === 0) {
      if (r.status === 'error')
        checks.push({ status: 'ERROR', name: r.id, detail: r.message ?? 'could not be tested' });
      else if (r.status === 'skipped') checks.push({ status: 'SKIP', name: r.id, detail: r.message ?? 'skipped' });
      continue;
    }
    for (const a of r.audits) {
      const status =
        a.status === 'pass' ? 'PASS' : a.status === 'warn' ? 'WARN' : a.status === 'fail' ? 'FAIL' : 'ERROR';
      const detail =
        a.status === 'error'
          ? a.message?.split('\n')[0]
          : a.status === 'pass'
            ? undefined
            : `${a.failures} failing row(s)`;
      checks.push({ status, name: `${a.name} on ${r.id}`, ...(detail ? { detail } : {}) });
    }
  }
  const count = (...s: string[]) => checks.filter((c) => s.includes(c.status)).length;
  return {
    checks,
    tally: {
      pass: count('PASS'),
      warn: count('WARN'),
      error: count('FAIL', 'ERROR'),
      skip: count('SKIP'),
      total: checks.length,
    },
  };
}

/** The tally of a build or run over its nodes (models and tests). */
export function nodeTally(results: readonly NodeResult[]): Tally {
  const count = (...s: NodeStatus[]) => results.filter((r) => s.includes(r.status)).length;
  return {
    pass: count('success'),
    warn: count('warn'),
    error: count('error', 'fail'),
    skip: count('skipped'),
    total: results.length,
  };
}
