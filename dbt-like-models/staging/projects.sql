/* @model
description: >
  Projects (one brand each), latest state. Deduplicated on (team_id, project_id) by the newest _extracted_at,
  so a sync that lands a project twice never doubles it downstream.
grain: one row per team and project
columns:
  team_id: the config's team name (the API has no team id on read endpoints)
  project_id: the project's id (raw.projects.id)
  project_name: the project's current name
  brand_name: the own brand's canonical name (what mention detection looks for)
  website_url: the own brand's website
  website_domain: host of website_url, lower case, without a leading www.
  brand_aliases: aliases of the own brand, as the project view lists them
  created_at: when the project was created (UTC)
audits:
  - not_null: [team_id, project_id, brand_name]
  - unique: [team_id, project_id]
*/
select
  team_id,
  id as project_id,
  name as project_name,
  brand_name,
  website_url,
  regexp_replace(lower(regexp_extract(website_url, '^[a-zA-Z]+://([^/:?#]+)', 1)), '^www\.', '') as website_domain,
  location,
  language,
  brand_aliases,
  created_at,
  _sync_run_id,
  _extracted_at
from raw.projects
qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
