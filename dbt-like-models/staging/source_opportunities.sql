/* @model
description: >
  The API's opportunity list: domains other than the own website cited 3+ times in answers that do not mention the own brand (citation_count counts only those).
grain: one row per team, project, window and domain
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to, domain]
*/
select
  team_id, project_id, window_from, window_to, lower(domain) as domain, citation_count, category, category_name,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.source_opportunities
qualify row_number() over (partition by team_id, project_id, window_from, window_to, domain order by _extracted_at desc) = 1
