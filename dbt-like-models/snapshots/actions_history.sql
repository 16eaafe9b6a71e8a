/* @model
kind: scd2
unique_key: [team_id, action_id]
strategy: timestamp
updated_at: changed_at
description: >
  History of each action's status, priority and expected impact, dated by the API's own `updated_at` (the action's
  last change), so "when did this action move to completed" is the valid_from of its first completed version.
  raw.actions holds only the latest state: each build adds a version when updated_at moved forward since the last
  build; changes between two builds collapse into the last. The first version of an action starts at its
  updated_at (its earlier states are not in the API). An action gone from the API is closed at build time.
grain: one row per team, action and version
columns:
  action_id: the action
  status: suggested | accepted | in_progress | completed | ignored during this version
  completed_at: completion time as served during this version
  changed_at: the API's updated_at (falling back to created_at, then the extraction time) of this version
  valid_from: start of the version (= changed_at)
  valid_to: end of the version (exclusive), null for the current one
audits:
  - not_null: [team_id, action_id, status, valid_from]
  - unique: [team_id, action_id, valid_from]
  - expression: {sql: "valid_to is null or valid_to > valid_from", name: valid_range}
*/
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
