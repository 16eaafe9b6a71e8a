/* @model
# a table, not a view: staging.chats reads it in every batch and hashes it to see whether it changed (it scans
# every answer), so it is computed once a build
kind: table
description: >
  Answers held back from staging.chats because their id was landed under more than one parent (project, prompt):
  an id names one answer, so two parents mean the API reused an id and no version can be trusted over the other.
  Every parent's newest extraction is kept here for inspection; empty on a healthy API, and the audit
  `chat_ids_under_two_parents` warns whenever it is not.
grain: one row per team, chat id and parent (project, prompt)
columns:
  chat_id: the id landed under several parents (raw.chats.id)
  parents: how many (project, prompt) parents the id was landed under
  chat_at: when this parent's answer was collected (UTC)
  chat_date: UTC day of chat_at
  provider: the AI provider (raw.chats.platform)
audits:
  - not_null: [team_id, chat_id, project_id, prompt_id]
  - number_of_rows: {max: 0, severity: warn, name: chat_ids_under_two_parents}
*/
with reused_ids as (
  -- Candidates first, on hashes of the id and of the parent: grouping half a million answers by their string ids
  -- (or windowing their full rows) cost four times as much. A hash collision of two ids only adds a candidate,
  -- which `counted` below drops; two parents would have to collide in 64 bits to hide a reused id.
  select id_hash
  from (select hash(team_id, id) as id_hash, hash(project_id, prompt_id) as parent_hash from raw.chats)
  group by id_hash
  having min(parent_hash) <> max(parent_hash)
),
versions as (
  select chats.*
  from raw.chats as chats
  semi join reused_ids on reused_ids.id_hash = hash(chats.team_id, chats.id)
  qualify row_number() over (
    partition by chats.team_id, chats.id, chats.project_id, chats.prompt_id order by chats._extracted_at desc
  ) = 1
),
counted as (
  select *, count(*) over (partition by team_id, id) as parents
  from versions
)
select
  team_id,
  id as chat_id,
  project_id,
  prompt_id,
  parents,
  date as chat_at,
  chat_date,
  platform as provider,
  model,
  prompt_content,
  full_content,
  _sync_run_id,
  _extracted_at
from counted
where parents > 1
