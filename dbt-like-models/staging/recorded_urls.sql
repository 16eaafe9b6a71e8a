/* @model
description: URLs the project records (tracks), latest state.
grain: one row per team and recorded URL
columns:
  recorded_url_id: the record's id (raw.recorded_urls.id)
  domain: host of url, lower case, without a leading www.
audits:
  - not_null: [team_id, recorded_url_id, project_id, url]
  - unique: [team_id, recorded_url_id]
*/
select
  team_id,
  project_id,
  id as recorded_url_id,
  url,
  normalized_url,
  regexp_replace(lower(regexp_extract(url, '^[a-zA-Z]+://([^/:?#]+)', 1)), '^www\.', '') as domain,
  title,
  icon_urls,
  created_at,
  list_total,
  _sync_run_id,
  _extracted_at
from raw.recorded_urls
qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
