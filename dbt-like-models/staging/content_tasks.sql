/* @model
description: >
  Content-generation tasks (second document's services), latest state. Columns pass through as landed (the
  stream is new; see sql/003_services.sql), deduplicated on (team_id, task_id).
grain: one row per team and task
audits:
  - not_null: [team_id, task_id]
  - unique: [team_id, task_id]
*/
select *
from raw.content_tasks
qualify row_number() over (partition by team_id, task_id order by _extracted_at desc) = 1
