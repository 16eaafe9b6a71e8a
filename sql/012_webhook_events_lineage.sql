-- raw.webhook_events follows the raw tables' contract: the team whose key the deliveries belong to (the run's team),
-- unknown fields (none: the body column keeps the whole delivery), the pipeline run that ingested it, and when.
ALTER TABLE raw.webhook_events ADD COLUMN IF NOT EXISTS team_id VARCHAR;
ALTER TABLE raw.webhook_events ADD COLUMN IF NOT EXISTS _extra JSON;
ALTER TABLE raw.webhook_events ADD COLUMN IF NOT EXISTS _sync_run_id VARCHAR;
ALTER TABLE raw.webhook_events ADD COLUMN IF NOT EXISTS _extracted_at TIMESTAMP;
