/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
lookback: 3
description: >
  A prompt's answers of a day, providers pooled, and those naming the own brand: what marts.action_impact counts
  over its before and after windows. Summed from intermediate.int_opportunity_chats, a day at a time, so a night
  adds its days instead of the impact mart counting every answer of the history again (at 10 x an agency, 4.9 M
  answers in 1.8 M prompt-days).
grain: one row per team, project, prompt and day with answers
columns:
  chat_date: UTC day of the answers
  answers: the prompt's answers that day (every provider)
  brand_mentions: of which naming the own brand
audits:
  - not_null: [team_id, project_id, prompt_id, chat_date, answers, brand_mentions]
  - unique: [team_id, project_id, prompt_id, chat_date]
  - expression: {sql: "brand_mentions between 0 and answers and answers > 0", name: mentions_within_answers}
*/
select
  team_id,
  project_id,
  prompt_id,
  chat_date,
  count(*) as answers,
  count(*) filter (where brand_mentioned) as brand_mentions
from intermediate.int_opportunity_chats
where chat_date between @start_date and @end_date
group by team_id, project_id, prompt_id, chat_date
