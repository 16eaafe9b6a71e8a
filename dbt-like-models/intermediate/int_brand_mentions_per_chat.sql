/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
lookback: 3
description: >
  Tracked mentions: one row per answer and tracked brand it names (own brand or active competitor, as the API
  reported in brands_mentioned for that day). A brand listed under two names in one answer (a rename) counts once:
  its best (lowest) position and mean sentiment.
grain: one row per team, chat and tracked brand named
columns:
  brand_id: staging.tracked_brands.brand_id
  position: 1-based rank among tracked brands in the answer
  sentiment: 0-100, null when the API gave none
audits:
  - not_null: [team_id, chat_id, brand_id, position]
  - unique: [team_id, chat_id, brand_id]
  - expression: {sql: "position >= 1", name: position_positive}
*/
select
  team_id,
  project_id,
  prompt_id,
  chat_id,
  chat_date,
  brand_id,
  bool_or(is_own_brand) as is_own_brand,
  min(brand_position) as position,
  avg(brand_sentiment) as sentiment
from staging.chat_mentions
where in_brands_mentioned and brand_id is not null and chat_date between @start_date and @end_date
group by team_id, project_id, prompt_id, chat_id, chat_date, brand_id
