/* @model
description: >
  The `all` provider rollup: each chat once under its own provider and once under 'all'. Join a chat-grain model
  to it on (team_id, chat_id) and group by `provider` to get every per-provider figure and the all-provider figure
  from the same pooled counts (never an average of provider rates).
grain: one row per team, chat and provider bucket (2 per chat)
columns:
  provider: the chat's provider, or 'all'
audits:
  - not_null: [team_id, chat_id, provider]
  - unique: [team_id, chat_id, provider]
*/
select team_id, chat_id, provider from staging.chats
union all
select team_id, chat_id, 'all' as provider from staging.chats
