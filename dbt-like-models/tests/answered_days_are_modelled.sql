/* @test
description: >
  Completeness: every answer in raw.chats up to the build's last day (@end_date: the last complete API day the sync
  recorded) is in staging.chats, and every (team, project, day) with answers is in the daily marts that have a row
  for every day with answers: brand_visibility_daily, share_of_voice_daily, prompt_performance_daily, and
  brand_visibility_trend (with answers counted) for the days intermediate.int_day_completeness calls complete.
  Answers whose id is quarantined (staging.chats_quarantine) are left out of the models on purpose and do not
  count. It catches a day built before its answers landed and never re-processed: the marts stop short of the raw
  data, or show the day with fewer or no answers, while every other audit passes. One row per (team, project, day)
  that falls short, with the answers on each side and the marts it is missing from.
*/
with answered as (
  select chats.team_id, chats.project_id, chats.chat_date as date, count(distinct chats.id) as raw_answers
  from raw.chats as chats
  anti join staging.chats_quarantine as quarantine
    on quarantine.team_id = chats.team_id and quarantine.chat_id = chats.id
  where chats.chat_date <= @end_date
  group by all
),
staged as (
  select team_id, project_id, chat_date as date, count(*) as staged_answers
  from staging.chats
  group by all
),
marts as (
  -- every day with answers has the own brand's pooled row in these three (and a prompt's pooled row in the next)
  select distinct team_id, project_id, date, 'brand_visibility_daily' as mart from marts.brand_visibility_daily
  where is_own_brand and provider = 'all'
  union all
  select distinct team_id, project_id, date, 'share_of_voice_daily' from marts.share_of_voice_daily
  where is_own_brand and provider = 'all'
  union all
  select distinct team_id, project_id, date, 'prompt_performance_daily' from marts.prompt_performance_daily
  where provider = 'all'
  union all
  select distinct team_id, project_id, date, 'brand_visibility_trend' from marts.brand_visibility_trend
  where is_own_brand and provider = 'all' and responses > 0
),
expected as (
  select answered.team_id, answered.project_id, answered.date, mart
  from answered
  cross join (values ('brand_visibility_daily'), ('share_of_voice_daily'), ('prompt_performance_daily')) as m(mart)
  union all
  -- The trend leaves out a day whose answers are not all in yet.
  select answered.team_id, answered.project_id, answered.date, 'brand_visibility_trend'
  from answered
  semi join intermediate.int_day_completeness as days
    on days.team_id = answered.team_id
    and days.project_id = answered.project_id
    and days.date = answered.date
    and days.is_complete
),
missing as (
  select team_id, project_id, date, string_agg(mart, ', ' order by mart) as missing_from_marts
  from expected
  anti join marts using (team_id, project_id, date, mart)
  group by all
)
select
  answered.team_id,
  answered.project_id,
  answered.date,
  answered.raw_answers,
  coalesce(staged.staged_answers, 0) as staged_answers,
  missing.missing_from_marts
from answered
left join staged using (team_id, project_id, date)
left join missing using (team_id, project_id, date)
where coalesce(staged.staged_answers, 0) < answered.raw_answers or missing.missing_from_marts is not null
order by all
