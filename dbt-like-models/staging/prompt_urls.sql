/* @model
description: Pages cited in a prompt's answers over an analysis window (API figures), with the prompt's current text.
grain: one row per team, prompt, window and url
columns:
  mentioned_count: citations of the URL in the window (API)
  url_type: source category code (0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other)
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, prompt_id, window_from, window_to, url]
  - unique: [team_id, prompt_id, window_from, window_to, url]
*/
with urls as (
  select *
  from raw.prompt_urls
  qualify row_number() over (
    partition by team_id, prompt_id, window_from, window_to, url order by _extracted_at desc
  ) = 1
)
select
  urls.team_id,
  urls.project_id,
  urls.prompt_id,
  prompts.prompt_content,
  urls.window_from,
  urls.window_to,
  urls.url,
  urls.title,
  lower(urls.domain) as domain,
  urls.url_type,
  urls.url_type_name,
  urls.mentioned_count,
  urls.brands_appear,
  urls.first_seen,
  urls.last_seen,
  max(urls.window_to) over (partition by urls.team_id, urls.project_id) = urls.window_to as is_latest_window,
  urls._sync_run_id,
  urls._extracted_at
from urls
left join staging.prompts as prompts
  on prompts.team_id = urls.team_id and prompts.prompt_id = urls.prompt_id
