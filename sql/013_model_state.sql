-- The model runner's own bookkeeping, next to what it builds so that state and data commit together.
-- `vwh models` on a warehouse no migration has touched applies this file alone (models/state.ts ensureState).

-- One row per model: the fingerprint it was last built with, and what it was built from.
CREATE TABLE IF NOT EXISTS ops.model_state (
  model VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  fingerprint VARCHAR NOT NULL,
  start_date DATE,
  built_at TIMESTAMP NOT NULL,
  run_id VARCHAR NOT NULL,
  -- what the last successful build was built from (freshness.ts); null until a build succeeds
  input_key VARCHAR,
  -- incremental_by_time_range: its inputs not cut by day, at its last successful build
  dims_key VARCHAR
);
-- Warehouses whose model_state predates input keys.
ALTER TABLE ops.model_state ADD COLUMN IF NOT EXISTS input_key VARCHAR;
ALTER TABLE ops.model_state ADD COLUMN IF NOT EXISTS dims_key VARCHAR;

-- One row per processed day of a time-range model.
CREATE TABLE IF NOT EXISTS ops.model_intervals (
  model VARCHAR NOT NULL,
  day DATE NOT NULL,
  processed_at TIMESTAMP NOT NULL,
  run_id VARCHAR NOT NULL
);

-- Days a time-range model must process again: a time-range model above it rewrote them (written in the transaction
-- that rewrote them, deleted as the model re-processes them), so a run that does not build the model loses nothing.
CREATE TABLE IF NOT EXISTS ops.model_restated (
  model VARCHAR NOT NULL,
  day DATE NOT NULL,
  restated_by VARCHAR NOT NULL,
  run_id VARCHAR NOT NULL
);

-- One row per node (model or test) per run.
CREATE TABLE IF NOT EXISTS ops.model_runs (
  run_id VARCHAR NOT NULL,
  node VARCHAR NOT NULL,
  node_type VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  started_at TIMESTAMP NOT NULL,
  finished_at TIMESTAMP NOT NULL,
  duration_ms DOUBLE NOT NULL,
  rows_affected BIGINT,
  intervals VARCHAR,
  message VARCHAR
);
