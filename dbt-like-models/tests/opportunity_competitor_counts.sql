/* @test
severity: error
*/
-- Answers whose competitor count (int_opportunity_chats, used by the domain marts) disagrees with the competitor
-- rows (int_chat_competitors, used by the gap and prompt marts): both must see the same tracked competitors.
with counted as (
  select chat_id, count(*) as competitors
  from intermediate.int_chat_competitors
  group by chat_id
)
select c.chat_id, c.competitors_named, coalesce(k.competitors, 0) as competitor_rows
from intermediate.int_opportunity_chats as c
left join counted as k on k.chat_id = c.chat_id
where c.competitors_named <> coalesce(k.competitors, 0)
