import type { ColumnType, Generated } from 'kysely';

/** A TIMESTAMP column: read as a Date, written as a Date. */
type Timestamp = ColumnType<Date, Date, Date>;
/** A DATE column: read as a Date (UTC midnight), written as `YYYY-MM-DD`. */
type DateDay = ColumnType<Date, string, string>;
/** A JSON column: read as text, written as text (callers JSON.stringify). */
type Json = ColumnType<string, string, string>;

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Timestamp;
}

export interface SyncRunsTable {
  run_id: string;
  team_id: string;
  base_url: string | null;
  started_at: Timestamp;
  ended_at: Timestamp | null;
  status: 'running' | 'succeeded' | 'partial' | 'failed' | 'interrupted';
  units_planned: Generated<number>;
  units_done: Generated<number>;
  requests: Generated<number>;
  throttled_429: Generated<number>;
  retries: Generated<number>;
  rows_per_stream: Json | null;
  rejected_rows: Generated<number>;
  error_code: string | null;
  error: string | null;
  options: Json | null;
}

export interface SyncStateTable {
  team_id: string;
  stream: string;
  parent_id: string;
  range_from: DateDay;
  range_to: DateDay;
  last_run_id: string;
  updated_at: Timestamp;
  /** The API day of the sync that landed the range while that day lasts; NULL once folded into earlier days. */
  api_day: DateDay | null;
}

export interface RejectedRowsTable {
  run_id: string;
  team_id: string;
  stream: string;
  parent_id: string;
  unit_key: string;
  endpoint: string;
  payload: Json | null;
  issues: Json;
  rejected_at: Timestamp;
}

export interface RateBudgetTable {
  key_id: string;
  timestamps: Json;
  updated_at: Timestamp;
}

export type StageStatus = 'running' | 'succeeded' | 'partial' | 'failed' | 'skipped' | 'interrupted';

export interface PipelineRunsTable {
  run_id: string;
  stage: string;
  trigger: 'manual' | 'schedule' | 'catch-up';
  started_at: Timestamp;
  ended_at: Timestamp | null;
  status: StageStatus;
  duration_ms: number | null;
  exit_code: number | null;
  counts: Json | null;
  error: string | null;
}

export interface AlertsSentTable {
  fingerprint: string;
  run_id: string;
  sent_at: Timestamp;
  outcome: 'sent' | 'suppressed' | 'failed';
  channels: Json;
  summary: Json;
}

/** The model runner's tables (sql/013_model_state.sql). */
export interface ModelStateTable {
  model: string;
  kind: string;
  fingerprint: string;
  start_date: DateDay | null;
  built_at: Timestamp;
  run_id: string;
  input_key: string | null;
  dims_key: string | null;
}

export interface ModelIntervalsTable {
  model: string;
  day: DateDay;
  processed_at: Timestamp;
  run_id: string;
}

export interface ModelRestatedTable {
  model: string;
  day: DateDay;
  restated_by: string;
  run_id: string;
}

export interface ModelRunsTable {
  run_id: string;
  node: string;
  node_type: string;
  status: string;
  started_at: Timestamp;
  finished_at: Timestamp;
  duration_ms: number;
  rows_affected: number | null;
  intervals: string | null;
  message: string | null;
}

/** How far the events stage ingested each webhook journal file (sql/014_webhook_events_idempotent.sql). */
export interface WebhookJournalTable {
  file: string;
  head: string;
  bytes: number;
  updated_at: Timestamp;
  run_id: string;
}

/** The `ops` schema as kysely sees it (tables addressed as `ops.<name>`). */
export interface OpsDatabase {
  'ops.schema_migrations': SchemaMigrationsTable;
  'ops.sync_runs': SyncRunsTable;
  'ops.sync_state': SyncStateTable;
  'ops.rejected_rows': RejectedRowsTable;
  'ops.rate_budget': RateBudgetTable;
  'ops.pipeline_runs': PipelineRunsTable;
  'ops.alerts_sent': AlertsSentTable;
  'ops.model_state': ModelStateTable;
  'ops.model_intervals': ModelIntervalsTable;
  'ops.model_restated': ModelRestatedTable;
  'ops.model_runs': ModelRunsTable;
  'ops.webhook_journal': WebhookJournalTable;
}
