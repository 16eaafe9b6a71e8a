/* @model
description: >
  Answers landed per project and UTC day, read straight from raw.chats whatever range a build covers (a view: the
  builds of the time-ranged models stop at their last day, usually yesterday, while a sync also lands today's
  on-time answers). marts.source_opportunities uses it to know whether the API's analysis window counted answers
  of days the build has not modelled yet.
grain: one row per team, project and day with answers landed
columns:
  team_id: the config's team
  project_id: project of the answers
  chat_date: UTC day of the answers
  answers: rows landed for that day (every extraction of an answer counts; zero never appears)
*/
select team_id, project_id, chat_date, count(*) as answers
from raw.chats
group by team_id, project_id, chat_date
