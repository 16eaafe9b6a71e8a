/* @model
description: >
  Prompts of every type (active, inactive, suggested...), latest state, with their current content. The metrics
  (visibility, position, sentiment, volume, cvr, trend) are the API's prompt-list figures over the 7 days ending
  on the sync day; re-aggregate from staging.chats for any other window.
grain: one row per team and prompt
columns:
  prompt_id: the prompt's id (raw.prompts.id)
  prompt_content: the prompt's current text
  prompt_type: active | inactive | suggested | pending | url_recommended (current)
  visibility: API figure, percent, last 7 days
  volume: API figure, chats collected in the last 7 days
  trend: up | down | stable (API, 7 days against the 7 before)
audits:
  - not_null: [team_id, prompt_id, project_id, prompt_content, prompt_type]
  - unique: [team_id, prompt_id]
  - relationships: {column: project_id, to: staging.projects, field: project_id}
*/
select
  team_id,
  id as prompt_id,
  project_id,
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
  created_at,
  _sync_run_id,
  _extracted_at
from raw.prompts
qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
