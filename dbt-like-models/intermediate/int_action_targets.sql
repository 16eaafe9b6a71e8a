/* @model
# a table, not a view: it reads every cited domain of every answer; as a view its three audits and
# marts.action_impact computed it again each (about 0.3 s a night on 10 x 50 x 365)
kind: table
description: >
  The prompts each completed action targets, as the issue words it: a `keyword` target matches prompts whose
  current text contains it (case-insensitive); a `url` or `domain` target matches prompts whose answers cite that
  domain (a URL counts by its host; `en.wikipedia.org` and `wikipedia.org` match either way); `page_type` targets,
  or no targets, mean the whole project. When an action has keyword/url/domain targets and none matches a prompt
  with answers, it falls back to the whole project (scope = project, match_kind = unmatched). page_type targets
  next to other targets add nothing (the others say where the action works). Only prompts with answers count.
  completed_at is the action's completed_at when the API sends one (an extra field), else its updated_at: the
  spec's Action has no completion time, and a completed action's last update is its move to completed (true of
  the reference; a later edit would move it).
grain: one row per team, completed action and targeted prompt
columns:
  action_id: the action
  project_id: project
  prompt_id: a prompt the action targets
  completed_at: when the action reached completed (completed_at if sent, else updated_at)
  scope: "targeted (matched by its targets) | project (every prompt of the project)"
  match_kind: "keyword | url | domain (how the prompt matched; several joined by +) | project | unmatched"
audits:
  - unique: [team_id, action_id, prompt_id]
  - not_null: [team_id, action_id, project_id, prompt_id, completed_at, scope, match_kind]
  - accepted_values: {column: scope, values: [targeted, project]}
*/
with completed_actions as (
  select team_id, action_id, project_id, coalesce(completed_at, updated_at) as completed_at, targets
  from staging.actions
  where status = 'completed' and coalesce(completed_at, updated_at) is not null
),
targets as (
  select a.team_id, a.action_id, a.project_id, t.type as target_type, trim(t.value) as target_value
  from completed_actions as a,
    unnest(coalesce(from_json(a.targets, '[{"type":"VARCHAR","value":"VARCHAR"}]'), [])) as u(t)
  where t.type in ('keyword', 'url', 'domain') and trim(coalesce(t.value, '')) <> ''
),
target_domains as (
  select
    team_id,
    action_id,
    project_id,
    target_type,
    regexp_replace(lower(regexp_extract(target_value, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?([^/:?#@]+)', 1)), '^www\.', '')
      as target_domain
  from targets
  where target_type in ('url', 'domain')
),
answered_prompts as (
  select distinct c.team_id, c.project_id, c.prompt_id, p.prompt_content
  from intermediate.int_prompt_days as c
  left join staging.prompts as p on p.team_id = c.team_id and p.prompt_id = c.prompt_id and p.project_id = c.project_id
),
target_cited as (
  -- The cited domains a target can match, found among the distinct ones (a scan of one column) before any prompt's
  -- citations are grouped: grouping every cited (prompt, domain) of the history was most of this model's time.
  select distinct td.team_id, td.project_id, d.domain
  from target_domains as td
  join (select distinct domain from intermediate.int_chat_domains) as d
    on d.domain = td.target_domain or td.target_domain like '%.' || d.domain or d.domain like '%.' || td.target_domain
  where td.target_domain <> ''
),
cited_domains as (
  select distinct c.team_id, c.project_id, c.prompt_id, c.domain
  from intermediate.int_chat_domains as c
  semi join target_cited as t on t.team_id = c.team_id and t.project_id = c.project_id and t.domain = c.domain
),
matches as (
  select t.team_id, t.action_id, ap.prompt_id, 'keyword' as match_kind
  from targets as t
  join answered_prompts as ap
    on ap.team_id = t.team_id and ap.project_id = t.project_id
    and contains(lower(ap.prompt_content), lower(t.target_value))
  where t.target_type = 'keyword'
  union
  select td.team_id, td.action_id, cd.prompt_id, td.target_type as match_kind
  from target_domains as td
  join cited_domains as cd
    on cd.team_id = td.team_id and cd.project_id = td.project_id
    and (cd.domain = td.target_domain or td.target_domain like '%.' || cd.domain or cd.domain like '%.' || td.target_domain)
  where td.target_domain <> ''
),
targeted as (
  select team_id, action_id, prompt_id, string_agg(match_kind, '+' order by match_kind) as match_kind
  from matches
  group by team_id, action_id, prompt_id
),
project_wide as (
  -- No keyword/url/domain target, or none matched: every answered prompt of the project.
  select
    a.team_id,
    a.action_id,
    ap.prompt_id,
    case when exists (select 1 from targets as t where t.team_id = a.team_id and t.action_id = a.action_id)
      then 'unmatched' else 'project' end as match_kind
  from completed_actions as a
  join answered_prompts as ap on ap.team_id = a.team_id and ap.project_id = a.project_id
  where not exists (select 1 from targeted as tg where tg.team_id = a.team_id and tg.action_id = a.action_id)
)
select a.team_id, a.action_id, a.project_id, x.prompt_id, a.completed_at, x.scope, x.match_kind
from completed_actions as a
join (
  select team_id, action_id, prompt_id, 'targeted' as scope, match_kind from targeted
  union all
  select team_id, action_id, prompt_id, 'project' as scope, match_kind from project_wide
) as x on x.team_id = a.team_id and x.action_id = a.action_id
