/* @model
description: >
  Generated articles (second document's services), latest state. Columns pass through as landed (see
  sql/003_services.sql), deduplicated on (team_id, article_id).
grain: one row per team and article
audits:
  - not_null: [team_id, article_id]
  - unique: [team_id, article_id]
*/
select *
from raw.articles
qualify row_number() over (partition by team_id, article_id order by _extracted_at desc) = 1
