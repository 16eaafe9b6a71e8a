/* @model
kind: incremental_by_unique_key
unique_key: [team_id, project_id, date]
strategy: merge
description: |
  Every project day that has had answers, with the answers it had when a build last saw it. A merge by key: a day
  whose answers are all gone from staging.chats (an API that answered an empty list for days it had answered
  before, a unit that replaced them with nothing) keeps its row and its old count, so the test
  answered_days_keep_their_answers sees the day that lost its answers, which the marts, rebuilt without it, cannot.
  `--full-refresh` rebuilds it from the answers held now (a loss before it is forgotten).
grain: one row per team, project and day that had answers
columns:
  date: the UTC day
  answers: the day's answers when a build last saw any
audits:
  - not_null: [team_id, project_id, date, answers]
  - unique: [team_id, project_id, date]
*/
select team_id, project_id, chat_date as date, count(*) as answers
from staging.chats
where chat_date <= @end_date
group by all
