/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# a month a transaction: on the 10 × 50 × 365 world a first build of the whole year at once (with the competitor
# id lists) failed with DuckDB's Out of Memory Error at the default 1GB memory limit; half a month since a month
# peaked at 1,666 MiB of RSS built alone (half a month: 1,478 MiB, 67 s of CPU against 80; docs/scaling.md)
batch_days: 15
batch_rows: 60000 # more days a batch while they hold under 60,000 input rows: a small history in one (docs/models.md)
description: >
  What AI answers cite, per domain and day: citations, the answers citing the domain out of all the project's
  answers that day, how many of those name the own brand, how many name a tracked competitor but not the brand, the
  tracked brands present, and the domain's category. Counts only, so any grain re-aggregates by summing (except
  the brand lists and competitors_present, which are distinct over the row). Provider `all` pools the providers.
grain: one row per team, project, date, provider (and `all`) and cited domain
columns:
  team_id: the config's team
  project_id: project
  date: UTC day of the answers
  provider: "AI provider id, or `all` for every provider pooled"
  domain: cited domain, as the API names it
  category: "0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other (the API's source categories)"
  category_name: name of the category
  is_own_domain: the project's own website
  responses: answers of the project that day and provider (the denominator of citing_share_pct)
  citing_responses: answers citing the domain at least once
  citations: references to the domain (an answer may cite it more than once)
  citing_share_pct: 100 × citing_responses / responses
  brand_mentioned_responses: citing answers that name the own brand
  unbranded_citations: citations in answers that do not name the own brand (the API's opportunity count)
  competitor_only_responses: citing answers naming at least one tracked competitor and not the own brand
  competitors_present: distinct tracked competitors (by id) named in the citing answers
  brands_present: "tracked brands named in the citing answers, sorted (the own brand included when named)"
audits:
  - unique: [team_id, project_id, date, provider, domain]
  - not_null: [team_id, project_id, date, provider, domain, category, responses, citing_responses, citations]
  - expression: {sql: "citing_responses between 1 and responses", name: citing_within_responses}
  - expression: {sql: "citations >= citing_responses", name: citations_at_least_citing}
  - expression: {sql: "brand_mentioned_responses + competitor_only_responses <= citing_responses", name: brand_and_competitor_only_disjoint}
  - expression: {sql: "unbranded_citations <= citations", name: unbranded_within_citations}
  - accepted_values: {column: category, values: [0, 1, 2, 3, 4, 5]}
*/
with responses_per_day as (
  select
    team_id,
    project_id,
    chat_date as date,
    case when grouping(provider) = 1 then 'all' else provider end as provider,
    count(*) as responses
  from intermediate.int_opportunity_chats
  where chat_date between @start_date and @end_date
  group by grouping sets ((team_id, project_id, chat_date, provider), (team_id, project_id, chat_date))
),
citing as (
  select team_id, project_id, chat_date, provider, domain, category, is_own_domain, chat_id, citations,
    brand_mentioned, competitors_named
  from intermediate.int_chat_domains
  where chat_date between @start_date and @end_date
),
per_domain as (
  select
    team_id,
    project_id,
    chat_date as date,
    case when grouping(provider) = 1 then 'all' else provider end as provider,
    domain,
    any_value(category) as category,
    bool_or(is_own_domain) as is_own_domain,
    count(*) as citing_responses,
    sum(citations)::bigint as citations,
    count(*) filter (where brand_mentioned) as brand_mentioned_responses,
    coalesce(sum(citations) filter (where not brand_mentioned), 0)::bigint as unbranded_citations,
    count(*) filter (where competitors_named > 0 and not brand_mentioned) as competitor_only_responses
  from citing
  group by grouping sets ((team_id, project_id, chat_date, provider, domain), (team_id, project_id, chat_date, domain))
),
-- The competitors named beside each cited domain, as flat (domain, day, provider, competitor) rows made distinct
-- before any list is built: collecting every citing answer's competitor list per domain and flattening it held a
-- month's lists in the aggregate (it ran out of DuckDB's memory at 10 × an agency, a month a batch).
domain_competitors as (
  select distinct d.team_id, d.project_id, d.chat_date, d.provider, d.domain, c.competitor_id, c.competitor_name
  from citing as d
  join intermediate.int_chat_competitors as c on c.team_id = d.team_id and c.chat_id = d.chat_id
  where c.chat_date between @start_date and @end_date
),
competitors_per_domain as (
  select
    team_id,
    project_id,
    chat_date as date,
    case when grouping(provider) = 1 then 'all' else provider end as provider,
    domain,
    count(distinct competitor_id) as competitors_present,
    list(distinct competitor_name) filter (where competitor_name is not null) as competitor_names
  from domain_competitors
  group by grouping sets ((team_id, project_id, chat_date, provider, domain), (team_id, project_id, chat_date, domain))
)
select
  p.team_id,
  p.project_id,
  p.date,
  p.provider,
  p.domain,
  p.category,
  ['corporate', 'editorial', 'institutional', 'reference', 'ugc', 'other'][p.category + 1] as category_name,
  p.is_own_domain,
  r.responses,
  p.citing_responses,
  p.citations,
  100 * p.citing_responses / r.responses as citing_share_pct,
  p.brand_mentioned_responses,
  p.unbranded_citations,
  p.competitor_only_responses,
  coalesce(c.competitors_present, 0) as competitors_present,
  list_sort(
    case when p.brand_mentioned_responses > 0
      then list_append(coalesce(c.competitor_names, []), pr.brand_name)
      else coalesce(c.competitor_names, []) end
  ) as brands_present
from per_domain as p
join responses_per_day as r using (team_id, project_id, date, provider)
left join competitors_per_domain as c using (team_id, project_id, date, provider, domain)
join staging.projects as pr on pr.team_id = p.team_id and pr.project_id = p.project_id
