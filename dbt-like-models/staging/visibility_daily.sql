/* @model
description: >
  The API's visibility trend per competitor and day (own brand first; injected with the all-zero id unless listed).
  Values are the API's mean over providers of per-provider figures, not pooled counts: use marts.brand_visibility_daily
  for pooled figures. Carries the competitor's current name.
grain: one row per team, project, competitor and date
columns:
  competitor_name: the name the response gave that day
  current_name: the competitor's current name (staging.competitors), else competitor_name
audits:
  - not_null: [team_id, project_id, competitor_id, date]
  - unique: [team_id, project_id, competitor_id, date]
*/
with trend as (
  select *
  from raw.visibility_daily
  qualify row_number() over (partition by team_id, project_id, competitor_id, date order by _extracted_at desc) = 1
),
current_names as (
  select distinct team_id, project_id, competitor_id, current_name
  from staging.competitors
)
select
  trend.team_id,
  trend.project_id,
  trend.competitor_id,
  trend.date,
  trend.name as competitor_name,
  coalesce(current_names.current_name, trend.name) as current_name,
  trend.website,
  trend.icon_url,
  trend.is_own_brand,
  trend.visibility,
  trend.sentiment,
  trend.position,
  trend.period,
  trend._sync_run_id,
  trend._extracted_at
from trend
left join current_names using (team_id, project_id, competitor_id)
