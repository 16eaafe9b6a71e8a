/* @model
kind: table
description: |
  Did completed actions raise the brand's visibility where they aimed, and by how much? A difference-in-differences
  estimate per completed action, with a 95% interval clustered by prompt, set against the action's expected impact.

  - before window = [completed day − 28, completed day − 1]; after window = [completed day + 14, completed day + 41]
    (the 14 days between are the ramp: content takes time to reach AI answers), cut at the project's last complete
    day (intermediate.int_day_completeness: a partial day would bias the after visibility down).
  - Per prompt, its change `d = after visibility − before visibility` (answers naming the own brand ÷ answers,
    providers pooled). Prompts without answers in both windows take no part.
  - Treated = the prompts the action targets (intermediate.int_action_targets); control = prompts no action whose
    effect changes during the windows reaches. An action "changes during the windows" when it completed between
    14 days before the before window (its ramp) and the end of the after window. A project-wide action of the same
    project raises treated and control prompts of a targeted action alike: it cancels and excludes nothing.
  - `did_prompts` (targeted actions): control = the project's other prompts. effect = mean d (treated) − mean d
    (control); standard error from the pooled prompt-level variance, √(s²(1/n_T + 1/n_C)), Student t with
    n_T + n_C − 2 degrees of freedom. Each prompt is one observation, so answers to one prompt are not treated as
    independent (cluster by prompt).
  - `did_projects` (project-wide actions: no untargeted prompt in the project): control = other projects of the
    team, each summarised by its mean d. effect = mean d (treated) − mean of the control projects' means; standard
    error √(s²_between (1 + 1/K)) from the spread of the K control projects' means (a brand's drift is shared by
    its prompts, so a project, not a prompt, is the independent unit), t with K − 1 degrees of freedom; needs K ≥ 2.
  - `none`: no usable control (or no answers in a window): no effect, vs_expected inconclusive.
  - vs_expected (expected range [expected_impact_min, expected_impact_max]): `below` when the whole interval is
    under it, `above` when over it, `within` when inside it, `inconclusive` when the interval straddles an edge
    or there is no estimate; null without a range.
  Assumes parallel trends (untargeted prompts move as the targeted ones would have without the action) and that
  measurement changes (aliases, tracked competitors) shift all prompts of a project alike; see docs/analytics.md.
grain: one row per completed action
columns:
  action_id: the action
  project_id: project
  title: the action's title
  category: the action's category
  targets: the action's targets (JSON, as the API gives them)
  completed_at: when it reached completed (completed_at if the API sends it, else updated_at)
  scope: targeted | project (see intermediate.int_action_targets)
  targeted_prompts: prompts in scope
  before_from: first day of the before window
  before_to: last day of the before window
  after_from: first day of the after window
  after_to: last day of the after window (cut at the last complete day; null while the window has not begun)
  before_responses: answers of the targeted prompts in the before window
  before_mentions: of which naming the own brand
  before_visibility: before_mentions / before_responses (0..1)
  after_responses: answers of the targeted prompts in the after window
  after_mentions: of which naming the own brand
  after_visibility: after_mentions / after_responses (0..1)
  delta_pp: "(after_visibility − before_visibility) × 100: the raw change, drift and other actions included (not the effect)"
  method: did_prompts | did_projects | none
  n_treated_prompts: treated prompts in the estimate (answered in both windows, no other action changing)
  n_control_prompts: control prompts in the estimate
  n_control_projects: control projects (did_projects), else null
  control_delta_pp: mean change of the control (percentage points)
  effect_pp: the difference-in-differences estimate, percentage points
  effect_se_pp: its standard error
  effect_df: degrees of freedom of the t quantile
  effect_ci_low_pp: lower bound of the 95% interval
  effect_ci_high_pp: upper bound
  significant: the interval excludes 0
  expected_impact_min: the action's expected impact, low end (percentage points)
  expected_impact_max: high end
  vs_expected: below | within | above | inconclusive (the interval against the expected range; null without a range)
  overlapping_actions: other completed actions completed between before_from − 14 and after_to (their prompts are left out)
  status: measured | awaiting_data (no complete day in the after window yet) | no_baseline (no answers in the before window) | no_control
audits:
  - unique: [action_id]
  - not_null: [action_id, project_id, completed_at, scope, targeted_prompts, before_responses, after_responses, status, method]
  - accepted_values: {column: status, values: [measured, awaiting_data, no_baseline, no_control]}
  - accepted_values: {column: method, values: [did_prompts, did_projects, none]}
  - accepted_values: {column: vs_expected, values: [below, within, above, inconclusive]}
  - expression: {sql: "effect_pp is null or effect_pp between effect_ci_low_pp and effect_ci_high_pp", name: effect_inside_interval}
  - expression: {sql: "(status = 'measured') = (effect_pp is not null)", name: measured_iff_effect}
*/
with actions as (
  select
    team_id, action_id, project_id, title, category, targets, coalesce(completed_at, updated_at) as completed_at,
    expected_impact_min, expected_impact_max
  from staging.actions
  where status = 'completed' and coalesce(completed_at, updated_at) is not null
),
last_day as (
  select team_id, project_id, max(date) filter (where is_complete) as last_day
  from intermediate.int_day_completeness
  group by all
),
scoped as (
  select
    a.team_id,
    a.action_id,
    a.project_id,
    a.completed_at,
    coalesce(any_value(t.scope), 'project') as scope,
    count(t.prompt_id) as targeted_prompts,
    cast(a.completed_at as date) - 28 as before_from,
    cast(a.completed_at as date) - 1 as before_to,
    cast(a.completed_at as date) + 14 as after_from,
    -- null while the after window has not begun (no complete day after the ramp yet)
    case when any_value(l.last_day) >= cast(a.completed_at as date) + 14
      then least(cast(a.completed_at as date) + 41, any_value(l.last_day))
    end as after_to
  from actions as a
  left join intermediate.int_action_targets as t on t.action_id = a.action_id
  left join last_day as l on l.team_id = a.team_id and l.project_id = a.project_id
  group by a.team_id, a.action_id, a.project_id, a.completed_at
),
changing as (
  -- Per action: the prompts another action reaches whose effect changes during this action's windows.
  select distinct s.action_id, o.action_id as other_action_id, o.project_id, o.scope, o.prompt_id
  from scoped as s
  join actions as oa on oa.team_id = s.team_id and oa.action_id <> s.action_id
  join intermediate.int_action_targets as o on o.action_id = oa.action_id
  -- other projects matter only to a project-wide action (their prompts are its control)
  where cast(o.completed_at as date) between s.before_from - 14 and coalesce(s.after_to, s.after_from + 27)
    and (o.project_id = s.project_id or s.scope = 'project')
),
excluded as (
  -- Left out of both groups, except a same-project project-wide action under a targeted one (it cancels).
  select distinct c.action_id, c.prompt_id
  from changing as c
  join scoped as s on s.action_id = c.action_id
  where not (s.scope = 'targeted' and c.scope = 'project' and c.project_id = s.project_id)
),
prompt_changes as (
  select
    s.action_id,
    ch.project_id,
    ch.prompt_id,
    t.prompt_id is not null as is_treated,
    count(*) filter (where ch.chat_date between s.before_from and s.before_to) as n_before,
    count(*) filter (where ch.chat_date between s.before_from and s.before_to and ch.brand_mentioned) as x_before,
    count(*) filter (where ch.chat_date between s.after_from and s.after_to) as n_after,
    count(*) filter (where ch.chat_date between s.after_from and s.after_to and ch.brand_mentioned) as x_after
  from scoped as s
  join last_day as pd on pd.team_id = s.team_id and (pd.project_id = s.project_id or s.scope = 'project')
  join intermediate.int_opportunity_chats as ch
    on ch.project_id = pd.project_id
    and (ch.chat_date between s.before_from and s.before_to or ch.chat_date between s.after_from and s.after_to)
  left join intermediate.int_action_targets as t on t.action_id = s.action_id and t.prompt_id = ch.prompt_id
  left join excluded as x on x.action_id = s.action_id and x.prompt_id = ch.prompt_id
  where x.prompt_id is null
  group by all
),
units as (
  -- One observation per prompt answered in both windows: its change in percentage points.
  select
    p.*,
    100 * (x_after / n_after - x_before / n_before) as d_pp
  from prompt_changes as p
  join scoped as s on s.action_id = p.action_id
  where n_before > 0 and n_after > 0
    and (p.is_treated or (s.scope = 'targeted' and p.project_id = s.project_id)
      or (s.scope = 'project' and p.project_id <> s.project_id))
),
treated as (
  select
    action_id,
    count(*) as n_t,
    avg(d_pp) as mean_t,
    coalesce(sum(d_pp * d_pp) - count(*) * avg(d_pp) ^ 2, 0) as ss_t,
    sum(n_before) as before_responses,
    sum(x_before) as before_mentions,
    sum(n_after) as after_responses,
    sum(x_after) as after_mentions
  from units
  where is_treated
  group by action_id
),
control_projects as (
  select action_id, project_id, count(*) as n, avg(d_pp) as mean_d, sum(d_pp * d_pp) - count(*) * avg(d_pp) ^ 2 as ss
  from units
  where not is_treated
  group by all
),
control as (
  select
    action_id,
    sum(n) as n_c,
    sum(n * mean_d) / sum(n) as mean_c,
    sum(ss) as ss_c,
    count(*) as k,
    avg(mean_d) as mean_of_projects,
    var_samp(mean_d) as var_between
  from control_projects
  group by action_id
),
raw_windows as (
  -- The targeted prompts' raw before/after counts (all targeted prompts, for the plain before/after change).
  select
    s.action_id,
    count(*) filter (where ch.chat_date between s.before_from and s.before_to) as before_responses,
    count(*) filter (where ch.chat_date between s.before_from and s.before_to and ch.brand_mentioned) as before_mentions,
    count(*) filter (where ch.chat_date between s.after_from and s.after_to) as after_responses,
    count(*) filter (where ch.chat_date between s.after_from and s.after_to and ch.brand_mentioned) as after_mentions
  from scoped as s
  join intermediate.int_action_targets as t on t.action_id = s.action_id
  join intermediate.int_opportunity_chats as ch on ch.project_id = s.project_id and ch.prompt_id = t.prompt_id
  group by s.action_id
),
estimates as (
  select
    s.*,
    t.n_t,
    c.n_c,
    c.k,
    case
      when t.n_t is null or c.n_c is null then 'none'
      when s.scope = 'targeted' and t.n_t + c.n_c >= 3 then 'did_prompts'
      when s.scope = 'project' and c.k >= 2 then 'did_projects'
      else 'none'
    end as method,
    case when s.scope = 'targeted' then c.mean_c else c.mean_of_projects end as control_delta_pp,
    t.mean_t,
    -- pooled prompt-level variance (did_prompts) or the spread of project means (did_projects)
    case when s.scope = 'targeted' and t.n_t + c.n_c >= 3
      then sqrt((t.ss_t + c.ss_c) / (t.n_t + c.n_c - 2) * (1.0 / t.n_t + 1.0 / c.n_c))
      when s.scope = 'project' and c.k >= 2 then sqrt(c.var_between * (1 + 1.0 / c.k))
    end as se,
    case when s.scope = 'targeted' then t.n_t + c.n_c - 2 else c.k - 1 end as df
  from scoped as s
  left join treated as t on t.action_id = s.action_id
  left join control as c on c.action_id = s.action_id
),
overlap_counts as (
  select action_id, count(distinct other_action_id) as overlapping_actions
  from changing
  group by action_id
),
final as (
  select
    e.*,
    case when e.method <> 'none' then e.mean_t - e.control_delta_pp end as effect_pp,
    case when e.method <> 'none' then t975(e.df) * e.se end as half_width
  from estimates as e
)
select
  f.action_id,
  f.project_id,
  a.title,
  a.category,
  a.targets,
  f.completed_at,
  f.scope,
  f.targeted_prompts,
  f.before_from,
  f.before_to,
  f.after_from,
  f.after_to,
  coalesce(r.before_responses, 0) as before_responses,
  coalesce(r.before_mentions, 0) as before_mentions,
  r.before_mentions / nullif(r.before_responses, 0) as before_visibility,
  coalesce(r.after_responses, 0) as after_responses,
  coalesce(r.after_mentions, 0) as after_mentions,
  r.after_mentions / nullif(r.after_responses, 0) as after_visibility,
  100 * (r.after_mentions / nullif(r.after_responses, 0) - r.before_mentions / nullif(r.before_responses, 0))
    as delta_pp,
  f.method,
  coalesce(f.n_t, 0) as n_treated_prompts,
  coalesce(f.n_c, 0) as n_control_prompts,
  case when f.scope = 'project' then coalesce(f.k, 0) end as n_control_projects,
  f.control_delta_pp,
  f.effect_pp,
  case when f.effect_pp is not null then f.se end as effect_se_pp,
  case when f.effect_pp is not null then f.df end as effect_df,
  f.effect_pp - f.half_width as effect_ci_low_pp,
  f.effect_pp + f.half_width as effect_ci_high_pp,
  f.effect_pp - f.half_width > 0 or f.effect_pp + f.half_width < 0 as significant,
  a.expected_impact_min,
  a.expected_impact_max,
  case
    when a.expected_impact_min is null or a.expected_impact_max is null then null
    when f.effect_pp is null then 'inconclusive'
    when f.effect_pp + f.half_width < least(a.expected_impact_min, a.expected_impact_max) then 'below'
    when f.effect_pp - f.half_width > greatest(a.expected_impact_min, a.expected_impact_max) then 'above'
    when f.effect_pp - f.half_width >= least(a.expected_impact_min, a.expected_impact_max)
      and f.effect_pp + f.half_width <= greatest(a.expected_impact_min, a.expected_impact_max) then 'within'
    else 'inconclusive'
  end as vs_expected,
  coalesce(oc.overlapping_actions, 0) as overlapping_actions,
  case
    when f.effect_pp is not null then 'measured'
    when f.after_to is null or coalesce(r.after_responses, 0) = 0 then 'awaiting_data'
    when coalesce(r.before_responses, 0) = 0 then 'no_baseline'
    else 'no_control'
  end as status
from final as f
join actions as a on a.action_id = f.action_id
left join raw_windows as r on r.action_id = f.action_id
left join overlap_counts as oc on oc.action_id = f.action_id
