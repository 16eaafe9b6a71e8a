/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# half a month a transaction: memory bounded by those days' rows, not the history's; a month of 10 x an agency's
# answers peaked near 2 GB of RSS under the 1 GB DuckDB limit (docs/models.md)
batch_days: 15
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
# the sync re-fetches 3 lookback days for late answers: they are re-processed with the new day
lookback: 3
# and a day built before its answers landed (a sync that ran behind) is re-processed once they land
restate_landed: raw.chat_mentions
description: >
  Brands found in each answer: the union of all_mentions, brands_mentioned and sentiment_by_brands, matched to the
  project's tracked brands (staging.tracked_brands) by any name the brand was listed under, case-insensitively.
  A tracked mention (`in_brands_mentioned`) carries position, count and sentiment; untracked (market) brands are in
  all_mentions only. Carries the chat's day and provider so marts need not join staging.chats for them.
grain: one row per team, chat and detected brand name
columns:
  brand_name: the name as the API reported it
  brand_id: the tracked brand it matches (null for untracked brands)
  brand_current_name: the tracked brand's current name, else brand_name
  is_own_brand: matches the project's own brand
  is_tracked_brand: matches a tracked brand (own or competitor on an active list)
  in_brands_mentioned: the API counted it as a tracked mention in this answer (position, count, sentiment set)
  brand_position: 1-based rank among tracked brands found in the answer
  brand_sentiment: 0-100
  provider: the chat's provider
audits:
  - not_null: [team_id, chat_id, brand_name, chat_date, provider]
  - unique: [team_id, chat_id, brand_name]
  - expression: {sql: "not in_brands_mentioned or brand_position >= 1", name: tracked_mentions_have_position}
*/
with mentions as (
  select *
  from raw.chat_mentions
  where chat_date between @start_date and @end_date
  qualify row_number() over (partition by team_id, chat_id, brand_name order by _extracted_at desc) = 1
),
brand_names as (
  select team_id, project_id, brand_id, brand_name, is_own_brand, unnest(name_keys) as name_key
  from staging.tracked_brands
)
select
  mentions.team_id,
  mentions.project_id,
  mentions.prompt_id,
  mentions.chat_id,
  mentions.chat_date,
  chats.provider,
  mentions.brand_name,
  brand_names.brand_id,
  coalesce(brand_names.brand_name, mentions.brand_name) as brand_current_name,
  coalesce(brand_names.is_own_brand, false) as is_own_brand,
  brand_names.brand_id is not null as is_tracked_brand,
  mentions.in_all_mentions,
  mentions.in_brands_mentioned,
  mentions.brand_position,
  mentions.brand_count,
  mentions.brand_sentiment,
  mentions.icon_url,
  mentions._sync_run_id,
  mentions._extracted_at
from mentions
-- a mention's day is its answer's (the sync lands both from one item into one partition): the answers of the days
-- built, not every answer of the history
join staging.chats as chats
  on chats.team_id = mentions.team_id and chats.chat_id = mentions.chat_id
  and chats.chat_date between @start_date and @end_date
left join brand_names
  on brand_names.team_id = mentions.team_id
  and brand_names.project_id = mentions.project_id
  and brand_names.name_key = lower(mentions.brand_name)
