/* @model
description: >
  Source statistics of an analysis window: distinct domains, citations and the citation share (percent) per category. API figures.
grain: one row per team, project and window
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to]
*/
select
  team_id, project_id, window_from, window_to, total_sources, total_citations,
  corporate_pct, editorial_pct, institutional_pct, reference_pct, ugc_pct, other_pct,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.source_stats
qualify row_number() over (partition by team_id, project_id, window_from, window_to order by _extracted_at desc) = 1
