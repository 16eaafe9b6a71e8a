/* @model
description: >
  The API's overview per prompt over the analysis window, for each requested prompt type (active, suggested).
  volume here is the estimated monthly search demand of the prompt text (20-6,300), not a chat count.
grain: one row per team, project, requested_type, window and prompt
columns:
  requested_type: the prompt_type the request asked for
  prompt_content: the prompt's current text (staging.prompts), else the served content
  volume: estimated monthly search demand (the spec's "estimated demand")
  competitors_mentioned: JSON list of active competitors with mention_count in this prompt's chats
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, requested_type, window_from, window_to, prompt_id]
  - unique: [team_id, project_id, requested_type, window_from, window_to, prompt_id]
*/
with overview as (
  select *
  from raw.overview
  qualify row_number() over (
    partition by team_id, project_id, requested_type, window_from, window_to, prompt_id order by _extracted_at desc
  ) = 1
)
select
  overview.team_id,
  overview.project_id,
  overview.requested_type,
  overview.window_from,
  overview.window_to,
  overview.prompt_id,
  coalesce(prompts.prompt_content, overview.content) as prompt_content,
  overview.prompt_type,
  overview.created_at,
  overview.topic_id,
  overview.topic_name,
  overview.visibility,
  overview.sentiment,
  overview.position,
  overview.volume,
  overview.intent,
  overview.cvr,
  overview.competitors_mentioned,
  max(overview.window_to) over (partition by overview.team_id, overview.project_id) = overview.window_to
    as is_latest_window,
  overview._sync_run_id,
  overview._extracted_at
from overview
left join staging.prompts as prompts
  on prompts.team_id = overview.team_id and prompts.prompt_id = overview.prompt_id
