/* @test
severity: error
*/
-- Answers whose competitor count (int_opportunity_chats, used by the domain marts) disagrees with the competitor
-- rows (int_chat_competitors, used by the gap and prompt marts): both must see the same tracked competitors.
with counted as (
  select team_id, chat_id, count(*) as competitors
  from intermediate.int_chat_competitors
  group by team_id, chat_id
)
select c.team_id, c.chat_id, c.competitors_named, coalesce(k.competitors, 0) as competitor_rows
from intermediate.int_opportunity_chats as c
left join counted as k on k.team_id = c.team_id and k.chat_id = c.chat_id
where c.competitors_named <> coalesce(k.competitors, 0)
