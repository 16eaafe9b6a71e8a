-- The nightly job's ledger (`vwh run`, `vwh schedule`), the alerts it sent, and the webhook deliveries it ingested.

-- One row per run and stage; the stage `run` is the whole run (its status is what catch-up and `vwh status` read).
-- A run killed before it recorded its end stays `running` until the next run marks it `interrupted`.
CREATE TABLE IF NOT EXISTS ops.pipeline_runs (
  run_id VARCHAR NOT NULL,
  stage VARCHAR NOT NULL,
  -- manual | schedule | catch-up
  trigger VARCHAR NOT NULL,
  started_at TIMESTAMP NOT NULL,
  ended_at TIMESTAMP,
  -- running | succeeded | partial | failed | skipped | interrupted
  status VARCHAR NOT NULL,
  duration_ms BIGINT,
  exit_code INTEGER,
  -- what the stage did: rows, requests, files, bytes... (never a secret)
  counts JSON,
  error VARCHAR,
  PRIMARY KEY (run_id, stage)
);

-- Alerts sent (or suppressed), so one broken night does not page every minute.
CREATE TABLE IF NOT EXISTS ops.alerts_sent (
  fingerprint VARCHAR NOT NULL,
  run_id VARCHAR NOT NULL,
  sent_at TIMESTAMP NOT NULL,
  -- sent | suppressed | failed
  outcome VARCHAR NOT NULL,
  channels JSON NOT NULL,
  summary JSON NOT NULL
);

-- Webhook deliveries received by `vwh events listen`, ingested from its journal by the next run.
-- Grain: one delivery (redeliveries of the same delivery id or the same body land once).
CREATE TABLE IF NOT EXISTS raw.webhook_events (
  event_key VARCHAR NOT NULL PRIMARY KEY,
  event VARCHAR NOT NULL,
  received_at TIMESTAMP NOT NULL,
  delivery_id VARCHAR,
  -- true for action.* deliveries whose X-Webhook-Signature verified; false for project.bootstrap callbacks
  signed BOOLEAN NOT NULL,
  action_id VARCHAR,
  workflow_id VARCHAR,
  project_id VARCHAR,
  -- project.bootstrap only: pending | confirmed | rejected, set by an authenticated GET of the project
  confirmation VARCHAR,
  body JSON NOT NULL,
  _ingested_at TIMESTAMP NOT NULL
);
COMMENT ON TABLE raw.webhook_events IS 'Webhook deliveries (action.checkpoint/completed/failed, project.bootstrap) from vwh events listen. Grain: one delivery.';
