/* @model
kind: scd2
unique_key: [team_id, project_id, competitor_id]
strategy: check
snapshot_time_column: version_from
check_columns: [competitor_name, website, state, list_kind, is_own_brand]
description: >
  History of each competitor of a project (active or pending list): its name, website, state, list and whether it
  is the own brand, one version per run of identical attributes over the sync days (a list's snapshot day is its
  window_to). The query returns one row per competitor and sync day from every list the syncs kept; a competitor on
  both lists the same day counts as active. The scd2 kind orders the days, folds unchanged ones into one version and
  dates each version by its first day, so the first build reconstructs every synced day and later builds add only
  the days after the last one each competitor was seen. Only competitors of their project's newest lists are
  returned: one gone from them is closed at build time.
grain: one row per team, project, competitor and version
columns:
  competitor_id: the competitor (the own brand may carry the all-zero id the API injects)
  competitor_name: name during this version
  website: website during this version
  state: the API's state during this version
  list_kind: active (tracked) or pending (detected, not tracked) during this version
  is_own_brand: the row is the project's own brand
  version_from: first sync day (00:00 UTC) of this version
  valid_from: start of the version (= version_from)
  valid_to: end of the version (exclusive), the next version's first sync day; null for the current one
  last_seen: the last sync day (00:00 UTC) on which this version was seen
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
    is_own_brand
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
current_competitors as (
  select daily.team_id, daily.project_id, daily.competitor_id
  from daily
  join newest_lists using (team_id, project_id, snapshot_date)
)
select
  daily.team_id,
  daily.project_id,
  daily.competitor_id,
  daily.competitor_name,
  daily.website,
  daily.state,
  daily.list_kind,
  daily.is_own_brand,
  cast(daily.snapshot_date as timestamp) as version_from
from daily
semi join current_competitors using (team_id, project_id, competitor_id)
