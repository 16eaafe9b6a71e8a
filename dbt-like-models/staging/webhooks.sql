/* @model
description: The team's webhooks, latest state.
grain: one row per team and webhook
columns:
  webhook_id: the webhook's id (raw.webhooks.id)
audits:
  - not_null: [team_id, webhook_id, url]
  - unique: [team_id, webhook_id]
*/
select
  team_id,
  id as webhook_id,
  url,
  events,
  is_active,
  created_at,
  _sync_run_id,
  _extracted_at
from raw.webhooks
qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
