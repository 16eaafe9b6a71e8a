/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
lookback: 3
description: >
  How many of a prompt's answers of a day name each tracked brand (providers pooled): the competitors'
  before/after counts of marts.action_impact's placebo comparison, and their first and last days. Summed from
  intermediate.int_brand_mentions_per_chat a day at a time (a mention's project, prompt and day are its answer's:
  staging.chat_mentions keeps only mentions of answers in staging.chats, and an answer id landed under two parents
  is quarantined), so a night adds its days instead of the impact mart joining every mention of the history to its
  answer again (at 10 x an agency, 6.7 M competitor mentions).
grain: one row per team, project, prompt, day and tracked brand named that day
columns:
  chat_date: UTC day of the answers
  brand_id: staging.tracked_brands.brand_id
  is_own_brand: the project's own brand
  answers: the prompt's answers that day naming the brand (every provider)
audits:
  - not_null: [team_id, project_id, prompt_id, chat_date, brand_id, is_own_brand, answers]
  - unique: [team_id, project_id, prompt_id, chat_date, brand_id]
  - expression: {sql: "answers > 0", name: answers_positive}
*/
select
  team_id,
  project_id,
  prompt_id,
  chat_date,
  brand_id,
  bool_or(is_own_brand) as is_own_brand,
  count(*) as answers
from intermediate.int_brand_mentions_per_chat
where chat_date between @start_date and @end_date
group by team_id, project_id, prompt_id, chat_date, brand_id
