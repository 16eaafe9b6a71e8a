/* @model
kind: scd2
unique_key: [team_id, project_id, competitor_id]
strategy: timestamp
updated_at: version_from
description: >
  History of each competitor of a project (active or pending list): its name, website, state, list and whether it
  is the own brand, one version per run of identical attributes over the sync days (a list's snapshot day is its
  window_to). The source query returns each competitor of the newest lists with `version_from` = the first sync day of
  its current run; scd2 strategy `timestamp` opens a new version when that moves forward. A competitor on both lists
  the same day counts as active. One gone from the newest lists is closed at build time.
grain: one row per team, project, competitor and version
columns:
  competitor_id: the competitor (the own brand may carry the all-zero id the API injects)
  competitor_name: name during this version
  website: website during this version
  state: the API's state during this version
  list_kind: active (tracked) or pending (detected, not tracked) during this version
  is_own_brand: the row is the project's own brand
  version_from: first sync day (00:00 UTC) this version was seen
  valid_from: start of the version (= version_from)
  valid_to: end of the version (exclusive), null for the current one
audits:
  - not_null: [team_id, project_id, competitor_id, competitor_name, list_kind, valid_from]
  - unique: [team_id, project_id, competitor_id, valid_from]
  - expression: {sql: "valid_to is null or valid_to > valid_from", name: valid_range}
*/
with daily as (
  -- One state per competitor and sync day; active wins over pending on the same day.
  select
    team_id,
    project_id,
    competitor_id,
    window_to as snapshot_date,
    competitor_name,
    website,
    state,
    list_kind,
    is_own_brand,
    hash(competitor_name, website, state, list_kind, is_own_brand) as attributes_hash
  from staging.competitors
  qualify row_number() over (
    partition by team_id, project_id, competitor_id, window_to order by (list_kind = 'active') desc
  ) = 1
),
newest_lists as (
  select team_id, project_id, max(window_to) as snapshot_date
  from staging.competitors
  group by team_id, project_id
),
current_states as (
  select daily.*
  from daily
  join newest_lists using (team_id, project_id, snapshot_date)
),
last_different_day as (
  select daily.team_id, daily.project_id, daily.competitor_id, max(daily.snapshot_date) as snapshot_date
  from daily
  join current_states
    on current_states.team_id = daily.team_id
    and current_states.project_id = daily.project_id
    and current_states.competitor_id = daily.competitor_id
  where daily.attributes_hash <> current_states.attributes_hash
  group by daily.team_id, daily.project_id, daily.competitor_id
),
run_start as (
  select daily.team_id, daily.project_id, daily.competitor_id, min(daily.snapshot_date) as snapshot_date
  from daily
  left join last_different_day
    on last_different_day.team_id = daily.team_id
    and last_different_day.project_id = daily.project_id
    and last_different_day.competitor_id = daily.competitor_id
  where daily.snapshot_date > coalesce(last_different_day.snapshot_date, date '0001-01-01')
  group by daily.team_id, daily.project_id, daily.competitor_id
)
select
  current_states.team_id,
  current_states.project_id,
  current_states.competitor_id,
  current_states.competitor_name,
  current_states.website,
  current_states.state,
  current_states.list_kind,
  current_states.is_own_brand,
  cast(run_start.snapshot_date as timestamp) as version_from
from current_states
join run_start
  on run_start.team_id = current_states.team_id
  and run_start.project_id = current_states.project_id
  and run_start.competitor_id = current_states.competitor_id
