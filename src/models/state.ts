import type { DayRange } from '../core/days.js';
import { readMigrations } from '../warehouse/migrate.js';
import type { Session } from '../warehouse/session.js';
import { splitStatements } from './sql-text.js';

/**
 * The runner's own bookkeeping, in the warehouse next to what it builds so that state and data commit together:
 * `ops.model_state` (fingerprint per model), `ops.model_intervals` (one row per processed day of a time-range
 * model), `ops.model_restated` (days a time-range model must process again because a time-range model upstream
 * rewrote them), `ops.model_runs` (one row per node per run). Their DDL is the migration sql/013_model_state.sql.
 */
const MODEL_STATE_MIGRATION = 13;

export interface ModelStateRow {
  model: string;
  kind: string;
  fingerprint: string;
  start_date: string | null;
  /** Day (UTC) of the last successful build; read only, written as built_at. */
  built_on?: string;
  /** What the last successful build was built from (freshness.ts); null until a build succeeds. */
  input_key?: string | null;
  /** incremental_by_time_range: the contents of its inputs that are not cut by day, at its last successful build. */
  dims_key?: string | null;
}

/**
 * The runner's tables, on a warehouse the migrations may not have touched (`vwh models` opens any DuckDB file):
 * its migration's statements, which are idempotent, in one transaction.
 */
export async function ensureState(exec: Session): Promise<void> {
  const migration = readMigrations().find((m) => m.version === MODEL_STATE_MIGRATION);
  if (!migration) throw new Error(`migration ${MODEL_STATE_MIGRATION} (ops.model_*) is missing from sql/`);
  await exec.run('CREATE SCHEMA IF NOT EXISTS ops');
  await exec.transaction(async () => {
    for (const statement of splitStatements(migration.sql)) await exec.run(statement);
  });
}

export async function readModelStates(exec: Session): Promise<Map<string, ModelStateRow>> {
  const exists = await exec.scalar<number>(
    "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'ops' AND table_name = 'model_state'",
  );
  if (!exists) return new Map();
  const rows = await exec.all<ModelStateRow>(
    `SELECT model, kind, fingerprint, strftime(start_date, '%Y-%m-%d') AS start_date,
            strftime(built_at, '%Y-%m-%d') AS built_on, input_key, dims_key
     FROM ops.model_state`,
  );
  return new Map(rows.map((r) => [r.model, r]));
}

export async function writeModelState(exec: Session, row: ModelStateRow, runId: string, now: string): Promise<void> {
  await exec.transaction(async () => {
    await exec.run('DELETE FROM ops.model_state WHERE model = $1', [row.model]);
    await exec.run(
      `INSERT INTO ops.model_state (model, kind, fingerprint, start_date, built_at, run_id, dims_key)
       VALUES ($1, $2, $3, CAST($4 AS DATE), CAST($5 AS TIMESTAMP), $6, $7)`,
      [row.model, row.kind, row.fingerprint, row.start_date, now, runId, row.dims_key ?? null],
    );
  });
}

/** Records what a model was built from, once its build and audits succeeded. */
export async function writeInputKey(exec: Session, model: string, inputKey: string): Promise<void> {
  await exec.run('UPDATE ops.model_state SET input_key = $2 WHERE model = $1', [model, inputKey]);
}

export function processedDays(exec: Session, model: string): Promise<Set<string>> {
  return daysOf(exec, 'model_intervals', model);
}

/** The days of `model` in the ops table `table` (none when a read-only warehouse has no such table yet). */
async function daysOf(exec: Session, table: string, model: string): Promise<Set<string>> {
  const exists = await exec.scalar<number>(
    "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'ops' AND table_name = $1",
    [table],
  );
  if (!exists) return new Set();
  const rows = await exec.all<{ day: string }>(
    `SELECT DISTINCT strftime(day, '%Y-%m-%d') AS day FROM ops.${table} WHERE model = $1`,
    [model],
  );
  return new Set(rows.map((r) => r.day));
}

/** Marks the days of `range` processed (call inside the transaction that wrote them). */
export async function markProcessed(exec: Session, model: string, range: DayRange, runId: string, now: string) {
  await exec.run(
    'DELETE FROM ops.model_intervals WHERE model = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE)',
    [model, range.from, range.to],
  );
  await exec.run(
    `INSERT INTO ops.model_intervals
     SELECT $1, CAST(g AS DATE), CAST($4 AS TIMESTAMP), $5
     FROM generate_series(CAST($2 AS DATE), CAST($3 AS DATE), INTERVAL 1 DAY) AS t(g)`,
    [model, range.from, range.to, now, runId],
  );
}

export async function clearIntervals(exec: Session, model: string): Promise<void> {
  await exec.run('DELETE FROM ops.model_intervals WHERE model = $1', [model]);
}

/**
 * Records that `by` rewrote the days of `range`, for each time-range model of `models` (its descendants): they must
 * process those days again, in whichever run builds them next. Call inside the transaction that rewrote the days,
 * so a rewrite is never committed without its restatement.
 */
export async function restate(
  exec: Session,
  models: readonly string[],
  range: DayRange,
  by: string,
  runId: string,
): Promise<void> {
  for (const model of models) {
    await exec.run(
      `INSERT INTO ops.model_restated
       SELECT $1, CAST(g AS DATE), $4, $5
       FROM generate_series(CAST($2 AS DATE), CAST($3 AS DATE), INTERVAL 1 DAY) AS t(g)`,
      [model, range.from, range.to, by, runId],
    );
  }
}

/** The days an upstream model rewrote since this model last processed them. */
export function restatedDays(exec: Session, model: string): Promise<Set<string>> {
  return daysOf(exec, 'model_restated', model);
}

/** The model processed the days of `range` again (every day when no range): they are no longer restated. */
export async function clearRestated(exec: Session, model: string, range?: DayRange): Promise<void> {
  if (!range) await exec.run('DELETE FROM ops.model_restated WHERE model = $1', [model]);
  else
    await exec.run(
      'DELETE FROM ops.model_restated WHERE model = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE)',
      [model, range.from, range.to],
    );
}

export interface RunRow {
  run_id: string;
  node: string;
  node_type: string;
  status: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  rows_affected: number | null;
  intervals: string | null;
  message: string | null;
}

/** Appends one row per node of a run, in one transaction. */
export async function recordRuns(exec: Session, rows: RunRow[]): Promise<void> {
  await exec.transaction(async () => {
    for (const row of rows) {
      await exec.run(
        'INSERT INTO ops.model_runs VALUES ($1, $2, $3, $4, CAST($5 AS TIMESTAMP), CAST($6 AS TIMESTAMP), $7, $8, $9, $10)',
        [
          row.run_id,
          row.node,
          row.node_type,
          row.status,
          row.started_at,
          row.finished_at,
          row.duration_ms,
          row.rows_affected,
          row.intervals,
          row.message,
        ],
      );
    }
  });
}
