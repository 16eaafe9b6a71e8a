-- raw.webhook_events holds one row per event, however many deliveries brought it. The receiver keys a delivery by the
-- SHA-256 of its signed body (event_key 'sha256:…'; rows of older versions keep 'delivery:<X-Webhook-Delivery-Id>'),
-- and the run's events stage also skips an action event whose (action_id, event, event_timestamp) is already here:
-- the same signed body sent under new delivery ids was stored once per id before.
ALTER TABLE raw.webhook_events ADD COLUMN IF NOT EXISTS event_timestamp TIMESTAMP;
UPDATE raw.webhook_events
   SET event_timestamp = CAST(TRY_CAST(json_extract_string(body, '$.timestamp') AS TIMESTAMPTZ) AS TIMESTAMP)
 WHERE event_timestamp IS NULL;
-- The copies older versions stored of one action event: the first received is kept.
DELETE FROM raw.webhook_events
 WHERE event_key IN (
   SELECT event_key FROM (
     SELECT event_key,
            row_number() OVER (PARTITION BY action_id, event, event_timestamp ORDER BY received_at, event_key) AS copy
       FROM raw.webhook_events
      WHERE action_id IS NOT NULL AND event_timestamp IS NOT NULL
   ) WHERE copy > 1
 );
COMMENT ON COLUMN raw.webhook_events.event_timestamp IS 'The body''s timestamp (UTC): with action_id and event, what makes an action event one event.';
COMMENT ON TABLE raw.webhook_events IS 'Webhook events (action.checkpoint/completed/failed, project.bootstrap) from vwh events listen. Grain: one event (one signed body; one (action_id, event, event_timestamp)).';
-- How far the events stage has ingested each journal file: `bytes` of complete lines, committed with each batch's
-- rows, so a run reads only what was appended since and a run killed mid-way resumes after its last batch. `head`
-- (the SHA-256 of the file's first line) tells a file replaced under the same path, which is then read again whole.
CREATE TABLE IF NOT EXISTS ops.webhook_journal (
  file VARCHAR NOT NULL PRIMARY KEY,
  head VARCHAR NOT NULL,
  bytes BIGINT NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  run_id VARCHAR NOT NULL
);
