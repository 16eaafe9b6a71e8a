/* @model
description: >
  Members of the services' team (active or invited), latest state. Columns pass through as landed (see
  sql/003_services.sql), deduplicated on (team_id, api_team_id, email).
grain: one row per team and member email
audits:
  - not_null: [team_id, email]
  - unique: [team_id, api_team_id, email]
*/
select *
from raw.team_members
qualify row_number() over (partition by team_id, api_team_id, email order by _extracted_at desc) = 1
