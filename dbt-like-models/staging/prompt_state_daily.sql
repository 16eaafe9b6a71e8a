/* @model
description: >
  The prompt list as it was on each sync day (one copy per UTC day a sync ran): the history of a prompt's type,
  topic and API metrics. Days without a sync have no row. Feeds snapshots.prompts_history.
grain: one row per team, snapshot_date and prompt
columns:
  snapshot_date: UTC day of the sync that saw this state
  prompt_content: the text on that day
  prompt_type: the type on that day
audits:
  - not_null: [team_id, snapshot_date, prompt_id, prompt_type]
  - unique: [team_id, snapshot_date, prompt_id]
*/
select
  team_id,
  snapshot_date,
  project_id,
  prompt_id,
  content as prompt_content,
  prompt_type,
  topic_id,
  country,
  intent,
  visibility,
  sentiment,
  position,
  volume,
  cvr,
  trend,
  _sync_run_id,
  _extracted_at
from raw.prompt_state_daily
qualify row_number() over (partition by team_id, snapshot_date, prompt_id order by _extracted_at desc) = 1
