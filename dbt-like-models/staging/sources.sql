/* @model
description: >
  Every domain cited in the project's answers over an analysis window, with its citation count and category (0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other). API figures.
grain: one row per team, project, window and domain
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to, domain]
*/
select
  team_id, project_id, window_from, window_to, source_id, lower(domain) as domain, category, reference_count, page,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.sources
qualify row_number() over (partition by team_id, project_id, window_from, window_to, domain order by _extracted_at desc) = 1
