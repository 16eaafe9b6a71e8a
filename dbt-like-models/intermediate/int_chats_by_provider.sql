/* @model
description: >
  Every chat twice, under its provider and under 'all' (staging.chat_providers), with its project, prompt and day:
  the base every per-provider mart groups, so the 'all' figures come from the same pooled counts.
grain: one row per team, chat and provider bucket (its provider, 'all')
columns:
  date: the chat's UTC day (chat_date)
  provider: chatgpt | perplexity | gemini | all
audits:
  - not_null: [team_id, project_id, prompt_id, chat_id, date, provider]
  - unique: [team_id, chat_id, provider]
*/
select
  chats.team_id,
  chats.project_id,
  chats.prompt_id,
  chats.chat_id,
  chats.chat_date as date,
  chat_providers.provider
from staging.chats as chats
join staging.chat_providers as chat_providers
  on chat_providers.team_id = chats.team_id and chat_providers.chat_id = chats.chat_id
