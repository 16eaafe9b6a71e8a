/* @model
description: >
  Chats citing a top domain, as the API pages them (items as JSON; prompt_id and provider extracted).
grain: one row per team, project, window, domain and chat item
columns:
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, project_id, window_from, window_to]
  - unique: [team_id, project_id, window_from, window_to, domain, page, item_index]
*/
select
  team_id, project_id, window_from, window_to, lower(domain) as domain, page, item_index,
  item ->> '$.id' as chat_id, item ->> '$.prompt_id' as prompt_id, item ->> '$.provider' as provider, item,
  max(window_to) over (partition by team_id, project_id) = window_to as is_latest_window,
  _sync_run_id,
  _extracted_at
from raw.source_chats
qualify row_number() over (partition by team_id, project_id, window_from, window_to, domain, page, item_index order by _extracted_at desc) = 1
