/* @model
description: >
  The `all` provider rollup: each chat once under its own provider and once under 'all'. Join a chat-grain model
  to it on (team_id, chat_id) and group by `provider` to get every per-provider figure and the all-provider figure
  from the same pooled counts (never an average of provider rates).
grain: one row per team, chat and provider bucket (2 per chat)
columns:
  provider: the chat's provider, or 'all'
# No audits of its own: (team_id, chat_id, provider) is unique and not null because staging.chats' (team_id,
# chat_id) is (its audits check each new day) and 'all' is no provider. As audits of a view they recomputed both
# halves of the union over every answer each night (0.3-0.4 s on 10 x 50 x 365), for a view no model reads.
*/
select team_id, chat_id, provider from staging.chats
union all
select team_id, chat_id, 'all' as provider from staging.chats
