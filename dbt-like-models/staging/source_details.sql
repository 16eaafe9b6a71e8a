/* @model
description: >
  Per-domain detail pages (top domains only): items of the urls and prompts sections as JSON, with the response's stats object repeated on each row.
grain: one row per team, project, window, domain, section, page and item
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to, domain, section, page, item_index]
*/
select
  team_id, project_id, window_from, window_to, lower(domain) as domain, section, page, item_index, section_total, item, stats,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.source_details
qualify row_number() over (partition by team_id, project_id, window_from, window_to, domain, section, page, item_index order by _extracted_at desc) = 1
