/* @model
kind: scd2
unique_key: [team_id, action_id]
strategy: timestamp
updated_at: changed_at
description: >
  History of each action's status, priority and expected impact, dated by the API's own timestamps, so "when did
  this action move to completed" is the valid_from of its first completed version. The API serves only an action's
  latest state (raw.actions is replaced by each sync), so the query returns, per action, its state as served dated
  by `updated_at` (falling back to created_at, then the extraction time) and, for a completed action changed again
  after it was completed, one more row dated by `completed_at` (the moment it reached completed; its other
  attributes there are those last served, the API does not keep older ones). The scd2 kind (strategy timestamp)
  orders these rows and applies only those newer than what the history already holds: each build adds a version
  when updated_at moved forward, and changes between two builds collapse into the last. The first version of an
  action starts at its first known timestamp (its earlier states are not in the API). An action gone from the API
  is closed at build time.
grain: one row per team, action and version
columns:
  action_id: the action
  status: suggested | accepted | in_progress | completed | ignored during this version
  completed_at: completion time as served during this version
  changed_at: the API's updated_at (falling back to created_at, then the extraction time) of this version, or its
    completed_at for the version that starts at completion
  valid_from: start of the version (= changed_at)
  valid_to: end of the version (exclusive), null for the current one
  last_seen: = valid_from (each timestamp is its own version)
audits:
  - not_null: [team_id, action_id, status, valid_from]
  - unique: [team_id, action_id, valid_from]
  - expression: {sql: "valid_to is null or valid_to > valid_from", name: valid_range}
*/
with served as (
  select
    team_id,
    project_id,
    action_id,
    title,
    category,
    priority,
    status,
    effort,
    expected_impact_min,
    expected_impact_max,
    targets,
    completed_at,
    coalesce(updated_at, created_at, _extracted_at) as changed_at
  from staging.actions
)
select * from served
union all
-- The move to completed, when the action was changed again after it: dated by completed_at.
select * replace (completed_at as changed_at)
from served
where status = 'completed' and completed_at < changed_at
