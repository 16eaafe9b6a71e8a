/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
lookback: 3
description: >
  Citations grouped by the domain they point to, per AI answer. A reference's host is lower-cased, stripped of
  `www.`, then mapped to the longest domain of intermediate.int_source_domain_catalog it equals or is a subdomain of
  (`en.wikipedia.org` counts for `wikipedia.org`, as the API counts it); a host the API never named stays itself
  (category 5, other). The chat's brand facts come along so that domain marts need no second join.
grain: one row per team, chat and cited domain
columns:
  chat_id: the citing chat
  project_id: project
  prompt_id: prompt answered
  chat_date: UTC day of the answer
  provider: AI provider id
  domain: cited domain, as the API names it
  category: "source category (0 corporate .. 5 other)"
  is_own_domain: the domain is the project's own website
  citations: references of the chat pointing to this domain (usually 1)
  brand_mentioned: the chat names the own brand
  competitors_named: tracked competitors the chat names
audits:
  - unique: [team_id, chat_id, domain]
  - not_null: [team_id, chat_id, project_id, prompt_id, chat_date, provider, domain, category, citations, brand_mentioned]
  - expression: {sql: "citations >= 1", name: citations_positive}
*/
with reference_hosts as (
  select
    r.team_id,
    r.chat_id,
    r.project_id,
    regexp_replace(r.host, '^www\.', '') as host
  from staging.chat_references as r
  where r.host is not null and r.chat_date between @start_date and @end_date
),
host_domains as (
  -- The longest catalogue domain that is the host or a parent of it, once per distinct host (not per reference:
  -- the suffix match is a join against the whole catalogue).
  select
    h.team_id,
    h.project_id,
    h.host,
    coalesce(
      arg_max(k.domain, length(k.domain)) filter (where k.domain is not null),
      h.host
    ) as domain
  from (select distinct team_id, project_id, host from reference_hosts where host <> '') as h
  left join intermediate.int_source_domain_catalog as k
    on k.team_id = h.team_id and k.project_id = h.project_id and (h.host = k.domain or h.host like '%.' || k.domain)
  group by h.team_id, h.project_id, h.host
),
mapped as (
  select r.team_id, r.chat_id, r.project_id, d.domain
  from reference_hosts as r
  join host_domains as d on d.team_id = r.team_id and d.project_id = r.project_id and d.host = r.host
)
select
  c.team_id,
  c.chat_id,
  c.project_id,
  c.prompt_id,
  c.chat_date,
  c.provider,
  m.domain,
  coalesce(k.category, 5) as category,
  coalesce(k.is_own_domain, false) as is_own_domain,
  count(*) as citations,
  c.brand_mentioned,
  c.competitors_named
from mapped as m
join intermediate.int_opportunity_chats as c
  on c.team_id = m.team_id and c.chat_id = m.chat_id and c.chat_date between @start_date and @end_date
left join intermediate.int_source_domain_catalog as k
  on k.team_id = m.team_id and k.project_id = m.project_id and k.domain = m.domain
group by all
