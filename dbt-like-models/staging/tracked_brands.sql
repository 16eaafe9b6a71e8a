/* @model
# a table, not a view: eight models read it (staging.chat_mentions in every batch), and so do a relationships audit
# of marts.brand_visibility_daily and its readers' input keys; each read of a view runs its query (about 45 ms on a
# small world)
kind: table
description: >
  The brands a project tracks: its own brand and every competitor that has been on its active list, each with its
  current name and every name it was ever listed under (lower case, for matching detected brand names). The own
  brand's brand_id is its competitor id when the API lists it, else the all-zero id the API injects.
grain: one row per team, project and tracked brand
columns:
  brand_id: competitor id (for the own brand see the description)
  brand_name: current name (for the own brand, the project's brand_name)
  is_own_brand: the project's own brand
  is_current: on the newest active list (always true for the own brand)
  name_keys: lower-cased names the brand was listed under, for matching raw brand names
audits:
  - not_null: [team_id, project_id, brand_id, brand_name, is_own_brand]
  - unique: [team_id, project_id, brand_id]
  - expression: {sql: "len(name_keys) > 0", name: has_name_keys}
*/
with own_listed as (
  select team_id, project_id, competitor_id, competitor_name, current_name
  from staging.competitors
  where is_own_brand and list_kind = 'active'
),
own_brand as (
  select
    projects.team_id,
    projects.project_id,
    coalesce(max(own_listed.competitor_id), '00000000-0000-0000-0000-000000000000') as brand_id,
    projects.brand_name,
    true as is_own_brand,
    true as is_current,
    projects.website_domain,
    list_distinct(list_append(
      list(lower(own_listed.competitor_name)) filter (where own_listed.competitor_name is not null),
      lower(projects.brand_name)
    )) as name_keys
  from staging.projects as projects
  left join own_listed using (team_id, project_id)
  group by projects.team_id, projects.project_id, projects.brand_name, projects.website_domain
),
competitor_brands as (
  select
    team_id,
    project_id,
    competitor_id as brand_id,
    any_value(current_name) as brand_name,
    false as is_own_brand,
    bool_or(is_latest) as is_current,
    any_value(website_domain) as website_domain,
    list_distinct(list(lower(competitor_name))) as name_keys
  from staging.competitors
  where list_kind = 'active' and not is_own_brand
  group by team_id, project_id, competitor_id
)
select * from own_brand
union all by name
select * from competitor_brands
