/* @model
kind: scd2
unique_key: [team_id, prompt_id]
strategy: check
snapshot_time_column: version_from
check_columns: [prompt_content, prompt_type, topic_id, country, intent]
description: >
  History of each prompt's attributes (text, type, topic, country, intent): one version per run of identical
  attributes over the sync days, so "what was this prompt's type on day D" is
  `valid_from <= D and (valid_to is null or D < valid_to)`. Built from every daily copy of the prompt list the syncs
  kept (staging.prompt_state_daily): the query returns one row per prompt and sync day, the scd2 kind orders them by
  `version_from` (the sync day), folds days with unchanged attributes into one version and dates each version by
  its first day. So the first build reconstructs the history of every synced day, and later builds add only the days
  after the last one each prompt was seen. Only prompts of their project's newest copy are returned: a prompt gone
  from it is closed at build time (its earlier days are not rebuilt on a first build). Nothing is known before the
  first sync day: the first version starts there (marts.prompt_performance_daily uses it for earlier days and says
  so). API metrics are not tracked here (they change every day): they are in staging.prompt_state_daily.
grain: one row per team, prompt and version
columns:
  prompt_id: the prompt
  prompt_content: the text during this version
  prompt_type: active | inactive | suggested | pending | url_recommended during this version
  topic_id: topic during this version
  country: country during this version
  intent: intent during this version
  version_from: first sync day (00:00 UTC) of this version
  valid_from: start of the version (= version_from)
  valid_to: end of the version (exclusive), the next version's first sync day; null for the current one
  last_seen: the last sync day (00:00 UTC) on which this version was seen
audits:
  - not_null: [team_id, prompt_id, prompt_type, valid_from]
  - unique: [team_id, prompt_id, valid_from]
  - expression: {sql: "valid_to is null or valid_to > valid_from", name: valid_range}
*/
with newest_copy as (
  select team_id, project_id, max(snapshot_date) as snapshot_date
  from staging.prompt_state_daily
  group by team_id, project_id
),
current_prompts as (
  select states.team_id, states.prompt_id
  from staging.prompt_state_daily as states
  join newest_copy using (team_id, project_id, snapshot_date)
)
select
  states.team_id,
  states.project_id,
  states.prompt_id,
  states.prompt_content,
  states.prompt_type,
  states.topic_id,
  states.country,
  states.intent,
  cast(states.snapshot_date as timestamp) as version_from
from staging.prompt_state_daily as states
semi join current_prompts
  on current_prompts.team_id = states.team_id and current_prompts.prompt_id = states.prompt_id
