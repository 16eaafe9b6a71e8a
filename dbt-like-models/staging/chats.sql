/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: chat_date
# half a month a transaction: memory bounded by those days' rows, not the history's; a month of 10 x an agency's
# answers peaked near 2 GB of RSS under the 1 GB DuckDB limit (docs/models.md)
batch_days: 15
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
# the sync re-fetches 3 lookback days for late answers: they are re-processed with the new day
lookback: 3
# and a day built before its answers landed (a sync that ran behind) is re-processed once they land
restate_landed: raw.chats
description: >
  One row per AI answer (the atom of every visibility figure), deduplicated on (team_id, chat_id) by the newest
  _extracted_at, with the prompt's current text. An id landed under two parents (project, prompt) is two answers
  the API gave one id: neither is kept here, both are in staging.chats_quarantine (and its audit warns), so no
  figure silently counts one of them at random. `mentioned`, `position` and `sentiment` are the own brand's
  (detected with the project's aliases as of the answer's day).
grain: one row per team and chat
columns:
  chat_id: the answer's id (raw.chats.id)
  chat_at: when the answer was collected (UTC)
  chat_date: UTC day of chat_at; the day every daily figure uses
  provider: the AI provider (raw.chats.platform), one of chatgpt | perplexity | gemini
  model: the provider's model
  prompt_content: the prompt's current text (staging.prompts)
  prompt_content_at_answer: the text the answer was given for
  mentioned: the own brand is in the answer
  position: the own brand's 1-based rank among tracked brands found (null if not mentioned)
  sentiment: the own brand's sentiment 0-100 (null if not mentioned)
audits:
  - not_null: [team_id, chat_id, project_id, prompt_id, chat_date, provider, mentioned]
  - unique: [team_id, chat_id]
  - expression: {sql: "mentioned = (position is not null)", name: position_iff_mentioned}
  - expression: {sql: "sentiment is null or sentiment between 0 and 100", name: sentiment_in_range}
  - relationships: {column: prompt_id, to: staging.prompts, field: prompt_id, severity: warn}
*/
with chats as (
  select *
  from raw.chats
  where chat_date between @start_date and @end_date
  qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
)
select
  chats.team_id,
  chats.project_id,
  chats.prompt_id,
  coalesce(prompts.prompt_content, chats.prompt_content) as prompt_content,
  chats.prompt_content as prompt_content_at_answer,
  chats.id as chat_id,
  chats.date as chat_at,
  chats.chat_date,
  chats.platform as provider,
  chats.model,
  chats.mentioned,
  chats.position,
  chats.sentiment,
  chats.chat_preview,
  chats.full_content,
  chats.brands_mentioned_is_null,
  chats.sentiment_by_brands_is_null,
  chats._sync_run_id,
  chats._extracted_at
from chats
left join staging.prompts as prompts
  on prompts.team_id = chats.team_id and prompts.prompt_id = chats.prompt_id
-- An id landed under two parents is in the quarantine, on whichever days it was answered. The quarantine is not cut
-- by day: when it changes, this model is rebuilt in full, so an old day loses an id that a new day reused.
anti join staging.chats_quarantine as quarantine
  on quarantine.team_id = chats.team_id and quarantine.chat_id = chats.id
