/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
description: |
  Whether each project day's answers are all in. Late answers of day D become visible a day later, so the newest
  day of a sync is usually partial. A day is complete when a later day of the project has answers (a sync saw the
  later day's answers, published after D's late ones, and re-read D in its lookback), or when every prompt
  answered that day has an answer from every provider the project is answered by (prompts × providers).
  Marts keep partial days out of trends, opportunity windows, action windows and alerts.
grain: one row per team, project and day with answers
columns:
  date: the UTC day
  answers: answers landed for the day
  prompts_answered: distinct prompts with an answer that day
  providers: distinct providers of the project (over all its days)
  expected_answers: prompts_answered × providers
  is_complete: true when the day's answers are all in (see above)
audits:
  - not_null: [team_id, project_id, date, answers, expected_answers, is_complete]
  - unique: [team_id, project_id, date]
  - expression: {sql: "answers <= expected_answers", name: answers_within_expected}
*/
with days as (
  select team_id, project_id, chat_date as date, count(*) as answers, count(distinct prompt_id) as prompts_answered
  from staging.chats
  where chat_date between @start_date and @end_date
  group by all
),
projects as (
  -- Over every day, not only the days being built: the newest day decides which day is the last one.
  select team_id, project_id, count(distinct provider) as providers, max(chat_date) as last_day
  from staging.chats
  group by all
)
select
  d.team_id,
  d.project_id,
  d.date,
  d.answers,
  d.prompts_answered,
  p.providers,
  d.prompts_answered * p.providers as expected_answers,
  d.date < p.last_day or d.answers = d.prompts_answered * p.providers as is_complete
from days as d
join projects as p on p.team_id = d.team_id and p.project_id = d.project_id
