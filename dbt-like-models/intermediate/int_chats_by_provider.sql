/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
description: >
  Every chat twice, under its provider and under 'all' (as staging.chat_providers), with its project, prompt and
  day: the base every per-provider mart groups, so the 'all' figures come from the same pooled counts. Cut by day
  like staging.chats, so the daily marts read only the days a night re-processed.
grain: one row per team, chat and provider bucket (its provider, 'all')
columns:
  date: the chat's UTC day (chat_date)
  provider: chatgpt | perplexity | gemini | all
audits:
  - not_null: [team_id, project_id, prompt_id, chat_id, date, provider]
  - unique: [team_id, chat_id, provider]
*/
with chats as (
  select team_id, project_id, prompt_id, chat_id, chat_date, provider
  from staging.chats
  where chat_date between @start_date and @end_date
)
select team_id, project_id, prompt_id, chat_id, chat_date as date, provider
from chats
union all
select team_id, project_id, prompt_id, chat_id, chat_date as date, 'all' as provider
from chats
