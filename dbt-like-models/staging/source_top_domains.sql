/* @model
description: >
  The 20 most cited domains of an analysis window, ranked. API figures.
grain: one row per team, project, window and domain
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to, domain]
*/
select
  team_id, project_id, window_from, window_to, rank, source_id, lower(domain) as domain, category, reference_count,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.source_top_domains
qualify row_number() over (partition by team_id, project_id, window_from, window_to, domain order by _extracted_at desc) = 1
