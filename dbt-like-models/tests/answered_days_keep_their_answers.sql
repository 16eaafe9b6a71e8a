/* @test
description: >
  A project day that had answers has some still: intermediate.int_answered_days remembers every (team, project,
  day) a build saw with answers; a day with none left in raw.chats (quarantined ids aside) lost them after they
  landed: an API that answered an empty list for days it had answered before, or rows deleted by hand. The marts are
  rebuilt without the day and answered_days_are_modelled cannot see it (it checks that what raw.chats holds is
  modelled). One row per day that lost its answers, with the answers a build last saw. If the loss is real (the
  API withdrew those answers), `vwh models build --full-refresh --select intermediate.int_answered_days` accepts it.
*/
with answered_now as (
  select chats.team_id, chats.project_id, chats.chat_date as date
  from raw.chats as chats
  anti join staging.chats_quarantine as quarantine
    on quarantine.team_id = chats.team_id and quarantine.chat_id = chats.id
  group by all
)
select seen.team_id, seen.project_id, seen.date, seen.answers as answers_before
from intermediate.int_answered_days as seen
anti join answered_now using (team_id, project_id, date)
order by all
