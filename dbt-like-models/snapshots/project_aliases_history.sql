/* @model
kind: scd2
unique_key: [team_id, project_id, alias_name]
strategy: check
snapshot_time_column: version_from
check_columns: [match_type]
description: >
  History of each brand alias of a project, dated by the sync that first saw it. The API gives aliases no date and
  raw.project_aliases holds only the newest sync's list (each sync replaces it), so without this history an alias
  added between two syncs could not be dated at all: a build after each sync records the alias on the day of the
  sync that first listed it (version_from: the sync's day, the snapshot_date its prompt list was kept under; when that sync kept
  none (a sync resumed on the day an interrupted one kept it), the newest list kept before it landed; the UTC day it
  landed only when no prompt list of the project was ever kept). marts.measurement_events reads it for alias_added /
  alias_removed. An alias gone from the newest list is closed at build time (valid_to). Nothing is known before the
  first build: the aliases a project has then carry that sync's day, and are no event.
grain: one row per team, project, alias and version
columns:
  alias_name: the alias as configured
  match_type: fuzzy or exact during this version
  version_from: UTC day (00:00) of the sync that first listed this version
  valid_from: start of the version (= version_from)
  valid_to: end of the version (exclusive), the next version's first sync day, or the build that found the alias gone; null while listed
audits:
  - not_null: [team_id, project_id, alias_name, match_type, valid_from]
  - unique: [team_id, project_id, alias_name, valid_from]
  - expression: {sql: "valid_to is null or valid_to > valid_from", name: valid_range}
*/
select
  a.team_id,
  a.project_id,
  a.alias_name,
  a.match_type,
  cast(coalesce(
    (select max(p.snapshot_date) from staging.prompt_state_daily as p
     where p.team_id = a.team_id and p.project_id = a.project_id and p._sync_run_id = a._sync_run_id),
    -- A sync resumed on the day an interrupted one already kept the prompt list skips that snapshot: the newest
    -- list kept before this landing dates it by the API's day, not by the machine's clock.
    (select max(p.snapshot_date) from staging.prompt_state_daily as p
     where p.team_id = a.team_id and p.project_id = a.project_id and p._extracted_at <= a._extracted_at),
    cast(a._extracted_at as date)) as timestamp) as version_from
from staging.project_aliases as a
