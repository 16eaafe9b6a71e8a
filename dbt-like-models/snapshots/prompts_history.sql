/* @model
kind: scd2
unique_key: [team_id, prompt_id]
strategy: timestamp
updated_at: version_from
description: >
  History of each prompt's attributes (text, type, topic, country, intent): one version per run of identical
  attributes, so "what was this prompt's type on day D" is
  `valid_from <= D and (valid_to is null or D < valid_to)`. Built from the daily copies of the prompt list that every
  sync keeps (staging.prompt_state_daily): the source query returns each prompt of the newest copy with
  `version_from` = the first sync day of its current run of identical attributes, and the scd2 strategy `timestamp`
  opens a new version when that moves forward. Versions are therefore dated by sync days, not build times; a prompt
  gone from the newest copy is closed at build time. Nothing is known before the first sync day: the first
  version starts there (marts.prompt_performance_daily uses it for earlier days and says so). API metrics are not
  tracked here (they change every day): they are in staging.prompt_state_daily.
grain: one row per team, prompt and version
columns:
  prompt_id: the prompt
  prompt_content: the text during this version
  prompt_type: active | inactive | suggested | pending | url_recommended during this version
  topic_id: topic during this version
  country: country during this version
  intent: intent during this version
  version_from: first sync day (00:00 UTC) this version was seen
  valid_from: start of the version (= version_from)
  valid_to: end of the version (exclusive), null for the current one
audits:
  - not_null: [team_id, prompt_id, prompt_type, valid_from]
  - unique: [team_id, prompt_id, valid_from]
  - expression: {sql: "valid_to is null or valid_to > valid_from", name: valid_range}
*/
with states as (
  select
    team_id,
    project_id,
    prompt_id,
    snapshot_date,
    prompt_content,
    prompt_type,
    topic_id,
    country,
    intent,
    hash(prompt_content, prompt_type, topic_id, country, intent) as attributes_hash
  from staging.prompt_state_daily
),
newest_copy as (
  select team_id, project_id, max(snapshot_date) as snapshot_date
  from states
  group by team_id, project_id
),
current_states as (
  select states.*
  from states
  join newest_copy using (team_id, project_id, snapshot_date)
),
last_different_day as (
  -- The newest sync day on which the prompt's attributes differed from today's: its current run starts after it.
  select states.team_id, states.prompt_id, max(states.snapshot_date) as snapshot_date
  from states
  join current_states
    on current_states.team_id = states.team_id and current_states.prompt_id = states.prompt_id
  where states.attributes_hash <> current_states.attributes_hash
  group by states.team_id, states.prompt_id
),
run_start as (
  select states.team_id, states.prompt_id, min(states.snapshot_date) as snapshot_date
  from states
  left join last_different_day
    on last_different_day.team_id = states.team_id and last_different_day.prompt_id = states.prompt_id
  where states.snapshot_date > coalesce(last_different_day.snapshot_date, date '0001-01-01')
  group by states.team_id, states.prompt_id
)
select
  current_states.team_id,
  current_states.project_id,
  current_states.prompt_id,
  current_states.prompt_content,
  current_states.prompt_type,
  current_states.topic_id,
  current_states.country,
  current_states.intent,
  cast(run_start.snapshot_date as timestamp) as version_from
from current_states
join run_start on run_start.team_id = current_states.team_id and run_start.prompt_id = current_states.prompt_id
