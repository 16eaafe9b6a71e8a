/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
lookback: 3
description: >
  Tracked competitors named in each AI answer: the brands of `brands_mentioned` (tracked as of the answer's day)
  other than the own brand (staging.chat_mentions.is_own_brand), under the competitor's current name. Brands the
  answers name without being tracked (`all_mentions` only) are left out: the API gives no visibility for them.
grain: one row per team, chat and tracked competitor named in it
columns:
  chat_id: the chat
  project_id: project
  prompt_id: prompt answered
  competitor_id: the competitor's id (brand_id; `name:<lower-case name>` if the detected name matches no tracked brand)
  chat_date: UTC day of the answer
  provider: AI provider id
  competitor_name: the competitor's current name (staging.chat_mentions.brand_current_name)
  competitor_position: 1-based rank among tracked brands
  brand_mentioned: the same chat names the own brand
audits:
  - unique: [team_id, chat_id, competitor_id]
  - not_null: [team_id, chat_id, project_id, prompt_id, chat_date, provider, competitor_name, brand_mentioned]
*/
select
  c.team_id,
  c.chat_id,
  c.project_id,
  c.prompt_id,
  c.chat_date,
  c.provider,
  coalesce(any_value(m.brand_id), 'name:' || lower(min(m.brand_name))) as competitor_id,
  min(m.brand_current_name) as competitor_name,
  min(m.brand_position) as competitor_position,
  c.brand_mentioned
from staging.chat_mentions as m
join intermediate.int_opportunity_chats as c on c.team_id = m.team_id and c.chat_id = m.chat_id
where m.in_brands_mentioned and not m.is_own_brand
  -- a mention's day is its answer's: the mentions of the days built, not every one of the history
  and m.chat_date between @start_date and @end_date and c.chat_date between @start_date and @end_date
group by c.team_id, c.chat_id, c.project_id, c.prompt_id, c.chat_date, c.provider,
  coalesce(m.brand_id, lower(m.brand_name)), c.brand_mentioned
