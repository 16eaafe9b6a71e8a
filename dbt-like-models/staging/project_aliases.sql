/* @model
description: Aliases of each project's own brand with their match type, latest state.
grain: one row per team, project and alias name
columns:
  alias_name: the alias as configured
  match_type: fuzzy (case- and spacing-insensitive) or exact (case-sensitive)
audits:
  - not_null: [team_id, project_id, alias_name, match_type]
  - unique: [team_id, project_id, alias_name]
  - accepted_values: {column: match_type, values: [fuzzy, exact]}
*/
select
  team_id,
  project_id,
  brand_name,
  name as alias_name,
  match_type,
  alias_limit,
  remaining,
  _sync_run_id,
  _extracted_at
from raw.project_aliases
qualify row_number() over (partition by team_id, project_id, name order by _extracted_at desc) = 1
