/* @model
description: >
  Competitor lists as served per sync: the active list (metrics over the analysis window, own brand included) and
  the pending list (detected, not tracked; no metrics), with each competitor's current name (its name in the
  latest list that has it). `is_latest` marks the rows of the newest list of their project and kind.
grain: one row per team, project, list_kind, window and competitor
columns:
  list_kind: active | pending
  competitor_name: the name in this list
  current_name: the competitor's name in its latest list
  is_own_brand: the row is the project's own brand (the API injects it with the all-zero id unless it is listed)
  is_latest: this row belongs to the newest list of (project, list_kind)
  visibility: API figure, percent of the project's chats in the window mentioning it
audits:
  - not_null: [team_id, project_id, list_kind, competitor_id, competitor_name, current_name]
  - unique: [team_id, project_id, list_kind, window_from, window_to, competitor_id]
  - accepted_values: {column: list_kind, values: [active, pending]}
*/
with competitors as (
  select *
  from raw.competitors
  qualify row_number() over (
    partition by team_id, project_id, list_kind, window_from, window_to, competitor_id order by _extracted_at desc
  ) = 1
),
current_names as (
  select team_id, project_id, competitor_id, name as current_name
  from competitors
  qualify row_number() over (
    partition by team_id, project_id, competitor_id
    order by window_to desc, (list_kind = 'active') desc, _extracted_at desc
  ) = 1
),
latest_lists as (
  select team_id, project_id, list_kind, max(window_to) as window_to
  from competitors
  group by all
)
select
  competitors.team_id,
  competitors.project_id,
  competitors.list_kind,
  competitors.window_from,
  competitors.window_to,
  competitors.competitor_id,
  competitors.name as competitor_name,
  current_names.current_name,
  competitors.website,
  regexp_replace(lower(regexp_extract(competitors.website, '^[a-zA-Z]+://([^/:?#]+)', 1)), '^www\.', '')
    as website_domain,
  competitors.icon_url,
  competitors.state,
  competitors.is_own_brand,
  competitors.has_metrics,
  competitors.visibility,
  competitors.sentiment,
  competitors.position,
  competitors.mention_count,
  competitors.days_with_data,
  competitors.period,
  competitors.list_total,
  competitors.window_to = latest_lists.window_to as is_latest,
  competitors._sync_run_id,
  competitors._extracted_at
from competitors
join current_names using (team_id, project_id, competitor_id)
join latest_lists using (team_id, project_id, list_kind)
