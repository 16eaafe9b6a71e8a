/* @model
description: >
  Window aggregates of a prompt's analytics response (volume = chats in the window, sentiment = rounded mean
  sentiment of mentioned chats). The window is the sync unit's day range.
grain: one row per team, prompt and window (window_from, window_to)
columns:
  prompt_content: the prompt's current text (prompt_content_served is the text the response gave)
audits:
  - not_null: [team_id, prompt_id, window_from, window_to]
  - unique: [team_id, prompt_id, window_from, window_to]
*/
with analytics as (
  select *
  from raw.prompt_analytics
  qualify row_number() over (
    partition by team_id, prompt_id, window_from, window_to order by _extracted_at desc
  ) = 1
)
select
  analytics.team_id,
  analytics.project_id,
  analytics.prompt_id,
  coalesce(prompts.prompt_content, analytics.prompt_content) as prompt_content,
  analytics.prompt_content as prompt_content_served,
  analytics.window_from,
  analytics.window_to,
  analytics.volume,
  analytics.sentiment,
  analytics._sync_run_id,
  analytics._extracted_at
from analytics
left join staging.prompts as prompts
  on prompts.team_id = analytics.team_id and prompts.prompt_id = analytics.prompt_id
