/* @model
kind: table
description: >
  Every domain known for a project, with its category. Domains and categories come from what the API served
  (sources list, top domains, opportunities, prompt domains, prompt URLs, newest window first); the own website and
  tracked competitors' websites are corporate (0) when the API never categorised them. Used to map a cited URL's
  host to the API's domain (`en.wikipedia.org` is cited, `wikipedia.org` is the source) and to give it a category.
grain: one row per team, project and domain
columns:
  project_id: project
  domain: domain as the API names it (lower case, no www.)
  category: "API category: 0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other"
  category_name: name of the category
  category_source: "api (served by an endpoint) | website (own or competitor website, not served)"
  is_own_domain: the project's own website domain
  competitor_name: tracked competitor whose website this is (null otherwise)
audits:
  - unique: [team_id, project_id, domain]
  - not_null: [team_id, project_id, domain, category, category_name, is_own_domain]
  - accepted_values: {column: category, values: [0, 1, 2, 3, 4, 5]}
*/
with served as (
  select team_id, project_id, domain, category, window_to, 1 as pref from staging.sources
  union all
  select team_id, project_id, domain, category, window_to, 2 from staging.source_top_domains
  union all
  select team_id, project_id, domain, category, window_to, 3 from staging.source_opportunities
  union all
  select team_id, project_id, domain, domain_type, window_to, 4 from staging.prompt_domains
  union all
  select team_id, project_id, domain, url_type, window_to, 5 from staging.prompt_urls where domain is not null
),
served_latest as (
  select team_id, project_id, lower(regexp_replace(domain, '^www\.', '')) as domain, category
  from served
  where category between 0 and 5
  qualify row_number() over (
    partition by team_id, project_id, lower(regexp_replace(domain, '^www\.', '')) order by window_to desc, pref
  ) = 1
),
own_websites as (
  select team_id, project_id, website_domain as domain
  from staging.projects
  where website_domain is not null
),
competitor_websites as (
  select
    team_id,
    project_id,
    website_domain as domain,
    min(current_name) as competitor_name
  from staging.competitors
  where list_kind = 'active' and not is_own_brand and website_domain is not null and website_domain <> ''
  group by all
),
all_domains as (
  select team_id, project_id, domain from served_latest
  union
  select team_id, project_id, domain from own_websites
  union
  select team_id, project_id, domain from competitor_websites
)
select
  d.team_id,
  d.project_id,
  d.domain,
  coalesce(s.category, 0) as category,
  ['corporate', 'editorial', 'institutional', 'reference', 'ugc', 'other'][coalesce(s.category, 0) + 1] as category_name,
  case when s.category is null then 'website' else 'api' end as category_source,
  o.domain is not null as is_own_domain,
  c.competitor_name
from all_domains as d
left join served_latest as s using (team_id, project_id, domain)
left join own_websites as o using (team_id, project_id, domain)
left join competitor_websites as c using (team_id, project_id, domain)
where d.domain is not null and d.domain <> ''
