/* @model
description: >
  Recommended actions of every status, latest state. `completed_at` comes from the response's extra field
  (the contract does not name it); targets stay JSON and are also unnested into target lists by type.
grain: one row per team and action
columns:
  action_id: the action's id (raw.actions.id)
  status: suggested | accepted | in_progress | completed | ignored (as served)
  targets: JSON list of {type, value}; type keyword | url | domain | page_type
  target_keywords: values of keyword targets
  target_urls: values of url targets
  target_domains: values of domain targets, lower case
  target_page_types: values of page_type targets
  completed_at: when the action was completed (from _extra.completed_at), null otherwise
  expected_impact_min: expected visibility gain, percentage points (low)
  expected_impact_max: expected visibility gain, percentage points (high)
audits:
  - not_null: [team_id, action_id, project_id, status]
  - unique: [team_id, action_id]
  - expression: {sql: "status <> 'completed' or completed_at is not null", name: completed_has_date, severity: warn}
*/
with actions as (
  select *
  from raw.actions
  qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
),
targets as (
  select
    team_id,
    id,
    cast(coalesce(targets, '[]') as json[]) as target_list
  from actions
)
select
  actions.team_id,
  actions.project_id,
  actions.id as action_id,
  actions.priority,
  actions.title,
  actions.description,
  actions.category,
  actions.effort,
  actions.expected_impact_min,
  actions.expected_impact_max,
  actions.status,
  actions.targets,
  list_transform(list_filter(targets.target_list, lambda t: json_extract_string(t, '$.type') = 'keyword'), lambda t: json_extract_string(t, '$.value'))
    as target_keywords,
  list_transform(list_filter(targets.target_list, lambda t: json_extract_string(t, '$.type') = 'url'), lambda t: json_extract_string(t, '$.value'))
    as target_urls,
  list_transform(list_filter(targets.target_list, lambda t: json_extract_string(t, '$.type') = 'domain'), lambda t: lower(json_extract_string(t, '$.value')))
    as target_domains,
  list_transform(list_filter(targets.target_list, lambda t: json_extract_string(t, '$.type') = 'page_type'), lambda t: json_extract_string(t, '$.value'))
    as target_page_types,
  try_cast(actions._extra ->> '$.completed_at' as timestamptz)::timestamp as completed_at,
  actions.execution_type,
  actions.execution_prompt,
  actions.execution_skill,
  actions.execution_params,
  actions."group" as action_group,
  actions.depends_on,
  actions.created_at,
  actions.updated_at,
  actions._sync_run_id,
  actions._extracted_at
from actions
join targets on targets.team_id = actions.team_id and targets.id = actions.id
