/* @model
description: >
  Daily citation share (percent of all citations that day) of the top 10 domains of an analysis window. API figures.
grain: one row per team, project, window, domain and date
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to, domain, date]
*/
select
  team_id, project_id, window_from, window_to, lower(domain) as domain, date, citation_share,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.source_share_daily
qualify row_number() over (partition by team_id, project_id, window_from, window_to, domain, date order by _extracted_at desc) = 1
