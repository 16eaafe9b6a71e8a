-- Operational tables of the sync: runs, per-parent state, rejected rows, the persisted rate budget.
-- ops.schema_migrations is created by the migrator itself (src/warehouse/migrate.ts).
CREATE SCHEMA IF NOT EXISTS ops;

-- One row per `vwh sync` run and team. Counters are written at the end of the run (and on failure).
CREATE TABLE IF NOT EXISTS ops.sync_runs (
  run_id VARCHAR NOT NULL,
  team_id VARCHAR NOT NULL,
  base_url VARCHAR,
  started_at TIMESTAMP NOT NULL,
  ended_at TIMESTAMP,
  -- running | succeeded | partial | failed | interrupted
  status VARCHAR NOT NULL,
  units_planned INTEGER NOT NULL DEFAULT 0,
  units_done INTEGER NOT NULL DEFAULT 0,
  requests INTEGER NOT NULL DEFAULT 0,
  throttled_429 INTEGER NOT NULL DEFAULT 0,
  retries INTEGER NOT NULL DEFAULT 0,
  rows_per_stream JSON,
  rejected_rows INTEGER NOT NULL DEFAULT 0,
  error_code VARCHAR,
  error VARCHAR,
  options JSON,
  PRIMARY KEY (run_id, team_id)
);

-- Finished day ranges per (team, stream, parent), kept merged: one row per maximal contiguous range.
-- Day-partitioned streams record the days whose rows are landed; snapshot and window streams record the
-- day (UTC) the snapshot was taken, so a second sync on the same day skips them.
CREATE TABLE IF NOT EXISTS ops.sync_state (
  team_id VARCHAR NOT NULL,
  stream VARCHAR NOT NULL,
  parent_id VARCHAR NOT NULL,
  range_from DATE NOT NULL,
  range_to DATE NOT NULL,
  last_run_id VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (team_id, stream, parent_id, range_from)
);

-- Rows (or whole pages) that failed their schema, with the zod issues. The sync goes on and exits 2.
CREATE TABLE IF NOT EXISTS ops.rejected_rows (
  run_id VARCHAR NOT NULL,
  team_id VARCHAR NOT NULL,
  stream VARCHAR NOT NULL,
  parent_id VARCHAR NOT NULL,
  unit_key VARCHAR NOT NULL,
  endpoint VARCHAR NOT NULL,
  payload JSON,
  issues JSON NOT NULL,
  rejected_at TIMESTAMP NOT NULL
);

-- The client's sliding-window budget, persisted so a restart inside the window does not burst.
-- key_id is the client's non-secret key identifier (never the key).
CREATE TABLE IF NOT EXISTS ops.rate_budget (
  key_id VARCHAR NOT NULL PRIMARY KEY,
  timestamps JSON NOT NULL,
  updated_at TIMESTAMP NOT NULL
);
