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
restate_landed: raw.chat_references
description: >
  Citations of each answer with the cited host and domain derived from the link. `domain` drops a leading www.,
  en. or m. (so en.wikipedia.org is wikipedia.org, as the API's source lists name it).
grain: one row per team, chat and reference (reference_index, link)
columns:
  host: the link's host, lower case
  domain: host without a leading www./en./m., the unit of the API's source lists
  provider: the chat's provider
audits:
  - not_null: [team_id, chat_id, chat_date, provider]
  - unique: [team_id, chat_id, reference_index, link]
*/
with refs as (
  select *
  from raw.chat_references
  where chat_date between @start_date and @end_date
  qualify row_number() over (
    partition by team_id, chat_id, reference_index, link order by _extracted_at desc
  ) = 1
),
hosts as (
  select *, lower(regexp_extract(link, '^[a-zA-Z]+://([^/:?#]+)', 1)) as host
  from refs
)
select
  hosts.team_id,
  hosts.project_id,
  hosts.prompt_id,
  hosts.chat_id,
  hosts.chat_date,
  chats.provider,
  hosts.reference_index,
  hosts.title,
  hosts.link,
  hosts.snippet,
  nullif(hosts.host, '') as host,
  nullif(regexp_replace(hosts.host, '^(www|en|m)\.', ''), '') as domain,
  hosts._sync_run_id,
  hosts._extracted_at
from hosts
-- a reference's day is its answer's (the sync lands both from one item into one partition): the answers of the days
-- built, not every answer of the history
join staging.chats as chats
  on chats.team_id = hosts.team_id and chats.chat_id = hosts.chat_id
  and chats.chat_date between @start_date and @end_date
