import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { AuditSpec } from './audits/spec.js';
import type { ColumnsRead } from './columns-read.js';
import type { Macro } from './macros.js';

export const MODEL_KINDS = [
  'view',
  'table',
  'ephemeral',
  'incremental_by_time_range',
  'incremental_by_unique_key',
  'scd2',
  'export',
] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/** The schemas a model file may live in: its folder under the models directory. */
export const MODEL_SCHEMAS = ['staging', 'intermediate', 'marts', 'snapshots'] as const;

/** What the header of a model file says, validated and with defaults applied. */
export interface ModelConfig {
  kind: ModelKind;
  description?: string;
  grain?: string;
  tags: string[];
  columns: Record<string, string>;
  audits: AuditSpec[];
  dependsOn: string[];
  /** incremental_by_time_range: the DATE/TIMESTAMP column the intervals cut. */
  timeColumn?: string;
  /** incremental_by_time_range: first day (YYYY-MM-DD); default the earliest day the query returns. */
  start?: string;
  /** incremental_by_time_range: how many days before the first missing one are re-processed. */
  lookback: number;
  /**
   * incremental_by_time_range: how many days before each day its rows read (a rolling window): every day re-processed
   * also re-processes that many days after it, which read it.
   */
  readsBack: number;
  /** incremental_by_time_range: at most this many days per transaction (0 = all missing days of a range at once). */
  batchDays: number;
  /**
   * incremental_by_time_range with `batchDays`: a batch grows past `batchDays` days while its share of the model's
   * inputs stays under this many rows (0: batches of `batchDays` days, however small the inputs).
   */
  batchRows: number;
  /**
   * incremental_by_time_range: raw tables whose rows landed since the model's newest `_extracted_at` re-process
   * their days (by the model's `time_column`), however old: late data the `lookback` would have to reach.
   */
  restateLanded: string[];
  /** incremental_by_unique_key and scd2. */
  uniqueKey: string[];
  /** incremental_by_unique_key: how new rows replace old ones. */
  strategy: 'delete+insert' | 'merge';
  /** scd2: detect changes by comparing columns (`check`) or by an updated-at column (`timestamp`). */
  scd2Strategy: 'check' | 'timestamp';
  /** scd2 with the check strategy: the columns compared (default every column but the key). */
  checkColumns: string[];
  /** scd2 with the timestamp strategy: the column dating each row (a newer value is a new version). */
  updatedAt?: string;
  /**
   * scd2 with the check strategy: the DATE/TIMESTAMP column dating each source row (a daily snapshot's day). With
   * it the query may return several rows per key, one per date, and versions are dated by it instead of build time.
   */
  snapshotTimeColumn?: string;
  /** scd2: close the current row of keys that disappeared from the source. */
  invalidateHardDeletes: boolean;
  /** export: where the file goes (relative paths from the working directory). */
  exportPath?: string;
  exportFormat: 'parquet' | 'csv';
  compression: string;
}

/** One model file, parsed. `id` is `schema.name`, also the relation it builds. */
export interface Model {
  id: string;
  schema: string;
  name: string;
  /** Path relative to the models directory, with forward slashes. */
  path: string;
  absPath: string;
  /** The file's text after the header, which is the model's SELECT. */
  sql: string;
  /** Line in the file where `sql` starts (1-based), to translate DuckDB's LINE n. */
  sqlLine: number;
  config: ModelConfig;
  /** Models built before this one (ids): what its SQL and `depends_on` read, and the `to` of its relationships audits. */
  parents: string[];
  /** The models its SQL and `depends_on` read, without audit-only parents (the inputs a unit test must give). */
  readParents: string[];
  /** What its SQL reads of each of `readParents`: column names (lower case), or '*' for all of them. */
  parentColumns: ReadonlyMap<string, ColumnsRead>;
  /** Tables it reads that are not models: sources (`raw.*`) and declared `depends_on`. */
  sources: string[];
  fingerprint: string;
}

/** A singular test: `tests/*.sql`, a query returning failing rows. */
export interface SingularTest {
  id: string;
  path: string;
  absPath: string;
  sql: string;
  sqlLine: number;
  severity: 'error' | 'warn';
  threshold: number;
  parents: string[];
  /** Tables it reads that are not models: sources (`raw.*`) and declared `depends_on`. */
  sources: string[];
  /** Its compiled SQL (ephemeral models pasted in), the macros it calls, severity and threshold. */
  fingerprint: string;
}

export interface Project {
  dir: string;
  models: Map<string, Model>;
  tests: SingularTest[];
  sourceSchemas: string[];
  /** Shared SQL macros (`macros/*.sql`), created before every build, test and unit test. */
  macros: Macro[];
  graph: ModelGraph;
  /** Things that are not errors but are probably mistakes: `.sql` files outside the folders the runner reads. */
  warnings: string[];
}

/** Parent and child maps of the models, and a topological order (parents first). */
export interface ModelGraph {
  order: string[];
  parents: Map<string, string[]>;
  children: Map<string, string[]>;
}

export interface RunOptions {
  command: 'build' | 'run' | 'test';
  /** The run's id (default a new one); the nightly job hands its own, so run_results.json names the same run. */
  runId?: string;
  select?: string[];
  exclude?: string[];
  /**
   * Last day incremental models process (inclusive), only ever lowering the horizon: the last complete API day the
   * sync recorded (`horizon.ts`; yesterday by the clock in a warehouse no sync has written).
   */
  end?: string;
  start?: string;
  fullRefresh?: boolean;
  /** Models built at the same time, each on its own connection. */
  threads?: number;
  storeFailures?: boolean;
  clock: Clock;
  logger: Logger;
}
