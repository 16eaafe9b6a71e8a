-- Ranges landed by a sync of the API's current day are kept apart (api_day = that day) from the merged ranges of
-- earlier days (api_day NULL). A re-run on the same day plans its units from the state as it was when the day
-- began, so it asks for exactly the units of the first run and skips those already landed: a killed sync resumes
-- to the same rows, window aggregates included. Rows of earlier days are folded into the merged ranges on the next
-- write. The primary key goes: a range of today may start on the same day as a merged range of earlier days.
CREATE TABLE ops.sync_state_by_day (
  team_id VARCHAR NOT NULL,
  stream VARCHAR NOT NULL,
  parent_id VARCHAR NOT NULL,
  range_from DATE NOT NULL,
  range_to DATE NOT NULL,
  last_run_id VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  api_day DATE
);
INSERT INTO ops.sync_state_by_day
SELECT team_id, stream, parent_id, range_from, range_to, last_run_id, updated_at, NULL FROM ops.sync_state;
DROP TABLE ops.sync_state;
ALTER TABLE ops.sync_state_by_day RENAME TO sync_state;
