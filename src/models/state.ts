import { sql } from 'kysely';
import type { DayRange } from '../core/days.js';
import { opsDb } from '../warehouse/kysely/index.js';
import { readMigrations } from '../warehouse/migrate.js';
import type { Session } from '../warehouse/session.js';
import { toDay } from '../warehouse/state-store.js';
import type { Relations } from './relations.js';
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
  /** When the last successful build started (ISO), and its run; read only. */
  built_at?: string;
  run_id?: string;
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
  if (!(await opsTableExists(exec, 'model_state'))) return new Map();
  const rows = await opsDb(exec)
    .selectFrom('ops.model_state')
    .select(['model', 'kind', 'fingerprint', 'start_date', 'built_at', 'run_id', 'input_key', 'dims_key'])
    .execute();
  return new Map(
    rows.map(({ start_date, built_at, ...row }) => [
      row.model,
      {
        ...row,
        start_date: start_date === null ? null : toDay(start_date),
        built_on: toDay(built_at),
        built_at: new Date(built_at).toISOString(),
      },
    ]),
  );
}

/** Replaces the model's row, in a transaction of its own. */
export async function writeModelState(exec: Session, row: ModelStateRow, runId: string, builtAt: Date): Promise<void> {
  await exec.transaction(() => replaceModelState(exec, row, runId, builtAt));
}

/**
 * Replaces the model's row; call inside the transaction that commits the model's build, so that the two commit
 * together (and the row costs no transaction of its own).
 */
export async function replaceModelState(
  exec: Session,
  row: ModelStateRow,
  runId: string,
  builtAt: Date,
): Promise<void> {
  const db = opsDb(exec);
  const values = {
    kind: row.kind,
    fingerprint: row.fingerprint,
    start_date: row.start_date,
    built_at: builtAt,
    run_id: runId,
    input_key: row.input_key ?? null,
    dims_key: row.dims_key ?? null,
  };
  // A model built before has its row: one UPDATE (a DELETE and an INSERT were two statements a model, every run).
  const updated = await db.updateTable('ops.model_state').set(values).where('model', '=', row.model).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    await db
      .insertInto('ops.model_state')
      .values({ model: row.model, ...values })
      .execute();
  }
}

/** Records what each model was built from (model -> input key), once its build and audits succeeded. */
async function writeInputKeys(exec: Session, keys: ReadonlyMap<string, string>): Promise<void> {
  if (keys.size === 0) return;
  // One UPDATE for the run's models (an UPDATE each was a statement per model on every run).
  await sql`UPDATE ops.model_state AS s SET input_key = k.input_key
    FROM (SELECT unnest(from_json(${JSON.stringify([...keys.keys()])}, '["VARCHAR"]')) AS model,
                 unnest(from_json(${JSON.stringify([...keys.values()])}, '["VARCHAR"]')) AS input_key) AS k
    WHERE s.model = k.model`.execute(opsDb(exec));
}

/** The days of `model` in `ops.model_intervals` (none when a read-only warehouse has no such table yet). */
export async function processedDays(exec: Session, model: string, relations: Relations): Promise<Set<string>> {
  if (relations.kind('ops', 'model_intervals') !== 'table') return new Set();
  const rows = await opsDb(exec)
    .selectFrom('ops.model_intervals')
    .select('day')
    .distinct()
    .where('model', '=', model)
    .execute();
  return new Set(rows.map((r) => toDay(r.day)));
}

/**
 * The days an upstream model rewrote since this model last processed them (`upstream`), and the days this model
 * recorded as stale itself (`own`: the `reads_back` days after a run's `--end`, the done days of rows landed since it
 * last read its `restate_landed` tables). One read of `ops.model_restated` for both.
 */
export async function restatedDays(
  exec: Session,
  model: string,
  relations: Relations,
): Promise<{ upstream: Set<string>; own: Set<string> }> {
  const upstream = new Set<string>();
  const own = new Set<string>();
  if (relations.kind('ops', 'model_restated') !== 'table') return { upstream, own };
  const rows = await opsDb(exec)
    .selectFrom('ops.model_restated')
    .select(['day', 'restated_by'])
    .distinct()
    .where('model', '=', model)
    .execute();
  for (const row of rows) (row.restated_by === model ? own : upstream).add(toDay(row.day));
  return { upstream, own };
}

/** A day compared with a DATE column as a DATE (kysely reads DATE columns as Dates). */
function asDate(day: string) {
  return sql<Date>`CAST(${day} AS DATE)`;
}

/** Whether `ops.<table>` exists (a read-only warehouse the runner never built in has none of its tables). */
async function opsTableExists(exec: Session, table: string): Promise<boolean> {
  const count = await exec.scalar<number>(
    "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'ops' AND table_name = $1",
    [table],
  );
  return count > 0;
}

/** Marks the days of `range` processed (call inside the transaction that wrote them). */
export async function markProcessed(exec: Session, model: string, range: DayRange, runId: string, now: Date) {
  const db = opsDb(exec);
  await db
    .deleteFrom('ops.model_intervals')
    .where('model', '=', model)
    .where('day', '>=', asDate(range.from))
    .where('day', '<=', asDate(range.to))
    .execute();
  if (range.from > range.to) return;
  // The days are generated in the statement: a VALUES row per day bound 4 parameters each (a 120-day batch, 480), and
  // DuckDB's binding of a long parameter list cost more than the insert
  // (docs/lab/2026-11-code-constants.md#the-models).
  await sql`INSERT INTO ops.model_intervals (model, day, processed_at, run_id)
    SELECT ${model}, CAST(d AS DATE), ${now}, ${runId} FROM ${dayRange(range)}`.execute(db);
}

/** `range(…) AS days(d)`: the days of `range` as rows (timestamps at midnight), from and to included. */
function dayRange(range: DayRange) {
  return sql`range(CAST(${range.from} AS DATE), CAST(${range.to} AS DATE) + INTERVAL 1 DAY, INTERVAL 1 DAY) AS days(d)`;
}

/** Forgets the model's processed days: every one, or those after the day `after`. */
export async function clearIntervals(exec: Session, model: string, after?: string): Promise<void> {
  let query = opsDb(exec).deleteFrom('ops.model_intervals').where('model', '=', model);
  if (after) query = query.where('day', '>', asDate(after));
  await query.execute();
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
  if (models.length === 0 || range.from > range.to) return;
  // One row per (model, day), generated in the statement (see markProcessed): ten models × 31 days was 1 240
  // parameters as VALUES rows.
  await sql`INSERT INTO ops.model_restated (model, day, restated_by, run_id)
    SELECT m.model, CAST(d AS DATE), ${by}, ${runId}
    FROM unnest(from_json(${JSON.stringify(models)}, '["VARCHAR"]')) AS m(model), ${dayRange(range)}`.execute(
    opsDb(exec),
  );
}

/** The model processed the days of `range` again (every day when no range): they are no longer restated. */
export async function clearRestated(exec: Session, model: string, range?: DayRange): Promise<void> {
  let query = opsDb(exec).deleteFrom('ops.model_restated').where('model', '=', model);
  if (range) query = query.where('day', '>=', asDate(range.from)).where('day', '<=', asDate(range.to));
  await query.execute();
}

export interface RunRow {
  run_id: string;
  node: string;
  node_type: string;
  status: string;
  started_at: Date;
  finished_at: Date;
  duration_ms: number;
  rows_affected: number | null;
  intervals: string | null;
  message: string | null;
}

/**
 * A singular test that ran: `key` (its inputs, freshness.ts testKey) when it passed, for a later build to reuse it
 * while they stay the same; null when it did not pass (or its inputs are unknown), so that it runs again.
 */
export interface TestRun {
  test: string;
  fingerprint: string;
  key: string | null;
  ranAt: Date;
}

/** The kind of a singular test's row in ops.model_state. */
export const TEST_KIND = 'test';

/**
 * Appends one row per node of a run, records the input keys of the models that succeeded and the singular tests'
 * outcomes, in one transaction (a transaction per model cost a commit each). A run killed before this point loses its
 * input keys: its models are rebuilt, and its tests run, by the next run.
 */
export async function recordRuns(
  exec: Session,
  rows: RunRow[],
  inputKeys: ReadonlyMap<string, string>,
  tests: readonly TestRun[] = [],
  runId = '',
): Promise<void> {
  if (rows.length === 0 && inputKeys.size === 0 && tests.length === 0) return;
  const db = opsDb(exec);
  await exec.transaction(async () => {
    await writeInputKeys(exec, inputKeys);
    for (const t of tests) {
      if (t.key === null) await db.deleteFrom('ops.model_state').where('model', '=', t.test).execute();
      else {
        const row = { model: t.test, kind: TEST_KIND, fingerprint: t.fingerprint, start_date: null, input_key: t.key };
        await replaceModelState(exec, row, runId, t.ranAt);
      }
    }
    if (rows.length > 0) await db.insertInto('ops.model_runs').values(rows).execute();
  });
}
