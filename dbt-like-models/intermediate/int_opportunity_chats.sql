/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
lookback: 3
description: >
  One row per AI answer (chat) with what the opportunity and impact marts need: whether the own brand is named and
  at which rank, the position weight of that mention, and how many tracked competitors the answer names.
  Tracked competitors are the brands the API lists in `brands_mentioned` on that day (own brand + active
  competitors as of the answer's day), minus the own brand (staging.chat_mentions.is_own_brand: the project's
  brand name, or a competitor the API flags `is_own_brand`).
grain: one row per team and chat
columns:
  chat_id: the chat's id (one AI answer)
  project_id: project of the prompt
  prompt_id: prompt answered
  chat_date: UTC day of the answer
  provider: AI provider id (chatgpt, perplexity, gemini), the chat's `platform`
  brand_mentioned: the own brand is detected in the answer (the API's `mentioned`)
  brand_position: 1-based rank of the own brand among tracked brands; null when not mentioned
  brand_weight: "position weight of the own brand: 1 / brand_position when mentioned, else 0"
  competitors_named: number of distinct tracked competitors (not the own brand) named in the answer
audits:
  - unique: [team_id, chat_id]
  - not_null: [team_id, chat_id, project_id, prompt_id, chat_date, provider, brand_mentioned, brand_weight, competitors_named]
  - expression: {sql: "brand_weight between 0 and 1", name: brand_weight_in_range}
  - expression: {sql: "brand_mentioned = (brand_position is not null)", name: position_iff_mentioned}
*/
with chats as (
  select team_id, chat_id, project_id, prompt_id, chat_date, provider, mentioned, position
  from staging.chats
  where chat_date between @start_date and @end_date
),
competitor_mentions as (
  select team_id, chat_id, count(distinct coalesce(brand_id, lower(brand_name))) as competitors_named
  from staging.chat_mentions
  where in_brands_mentioned and not is_own_brand and chat_date between @start_date and @end_date
  group by team_id, chat_id
)
select
  c.team_id,
  c.chat_id,
  c.project_id,
  c.prompt_id,
  c.chat_date,
  c.provider,
  c.mentioned as brand_mentioned,
  case when c.mentioned then c.position end as brand_position,
  -- DECIMAL so that sums of it are exact, whatever the order of the rows.
  cast(case when c.mentioned and c.position >= 1 then 1 / c.position else 0 end as decimal(18, 15)) as brand_weight,
  coalesce(cm.competitors_named, 0) as competitors_named
from chats as c
left join competitor_mentions as cm on cm.team_id = c.team_id and cm.chat_id = c.chat_id
