/* @model
kind: table
description: |
  Did completed actions raise the brand's visibility where they aimed? For each action that reached `completed`,
  the own brand's visibility (answers naming it ÷ answers, providers pooled) on the prompts it targets
  (intermediate.int_action_targets), over 28 days before completion and 28 days after a 14-day ramp (content
  takes time to be picked up by AI answers; the reference world ramps an action's effect in over 14 days), set
  against the action's expected impact.

  - before window = [completed day − 28, completed day − 1]
  - after window = [completed day + 14, completed day + 41], cut at the project's last answer day
  - `delta_pp` = (after_visibility − before_visibility) × 100, percentage points like expected_impact_min/max
  - delta interval = Newcombe's hybrid score interval (method 10) from the two Wilson 95% intervals:
    [d − √((p₂ − l₂)² + (u₁ − p₁)²), d + √((u₂ − p₂)² + (p₁ − l₁)²)]. It treats answers as independent; answers
    of one prompt are correlated, so it is somewhat too narrow.
  - control = the project's answered prompts the action does not target, same windows (null for a project-wide
    action): `net_delta_pp = delta_pp − control_delta_pp` removes the drift every prompt shares. Prompts targeted
    by another completed action whose effect changes during the windows (completed from 14 days before the before
    window to the end of the after window) are left out of the control; project-wide actions raise both groups
    alike and cancel out.
  - `vs_expected` = below | within | above: delta_pp against [expected_impact_min, expected_impact_max].
grain: one row per completed action
columns:
  action_id: the action
  project_id: project
  title: the action's title
  category: the action's category
  targets: the action's targets (JSON, as the API gives them)
  completed_at: when it reached completed (completed_at if the API sends it, else updated_at)
  scope: "targeted | project (see intermediate.int_action_targets)"
  targeted_prompts: prompts in scope
  before_from: first day of the before window
  before_to: last day of the before window
  after_from: first day of the after window
  after_to: last day of the after window (cut at the last answer day; null while the window has not begun)
  before_responses: answers of the targeted prompts in the before window
  before_mentions: of which naming the own brand
  before_visibility: before_mentions / before_responses (0..1)
  after_responses: answers of the targeted prompts in the after window
  after_mentions: of which naming the own brand
  after_visibility: after_mentions / after_responses (0..1)
  delta_pp: (after_visibility − before_visibility) × 100
  delta_ci_low_pp: lower bound of the Newcombe 95% interval of delta_pp
  delta_ci_high_pp: upper bound
  significant: the interval excludes 0
  expected_impact_min: the action's expected impact, low end (percentage points)
  expected_impact_max: high end
  vs_expected: "below | within | above (delta_pp against the expected range; null without a range or a delta)"
  control_prompts: answered prompts in the control (not targeted by this action nor by an overlapping one)
  control_delta_pp: the same delta on the control prompts
  net_delta_pp: delta_pp − control_delta_pp
  overlapping_actions: other completed actions of the project completed between before_from − 14 and after_to (their effect may be in delta_pp too)
  status: "measured | awaiting_data (no answers yet in the after window) | no_baseline (no answers in the before window, e.g. prompts created after the action)"
audits:
  - unique: [action_id]
  - not_null: [action_id, project_id, completed_at, scope, targeted_prompts, before_responses, after_responses, status]
  - accepted_values: {column: status, values: [measured, awaiting_data, no_baseline]}
  - expression: {sql: "delta_pp is null or delta_pp between delta_ci_low_pp and delta_ci_high_pp", name: delta_inside_interval}
  - expression: {sql: "(status = 'measured') = (delta_pp is not null)", name: measured_iff_delta}
*/
with actions as (
  select
    action_id, project_id, title, category, targets, coalesce(completed_at, updated_at) as completed_at, expected_impact_min,
    expected_impact_max
  from staging.actions
  where status = 'completed' and coalesce(completed_at, updated_at) is not null
),
last_day as (
  select project_id, max(chat_date) as last_day
  from intermediate.int_opportunity_chats
  group by project_id
),
scoped as (
  select
    a.action_id,
    a.project_id,
    a.completed_at,
    coalesce(any_value(t.scope), 'project') as scope,
    count(t.prompt_id) as targeted_prompts,
    cast(a.completed_at as date) - 28 as before_from,
    cast(a.completed_at as date) - 1 as before_to,
    cast(a.completed_at as date) + 14 as after_from,
    -- null while the after window has not begun (nothing after the ramp yet)
    case when any_value(l.last_day) >= cast(a.completed_at as date) + 14
      then least(cast(a.completed_at as date) + 41, any_value(l.last_day))
    end as after_to
  from actions as a
  left join intermediate.int_action_targets as t on t.action_id = a.action_id
  left join last_day as l on l.project_id = a.project_id
  group by a.action_id, a.project_id, a.completed_at
),
overlapping as (
  -- Other completed actions whose effect changes during this action's windows (completed between 14 days before
  -- the before window, the ramp, and the end of the after window).
  select distinct s.action_id, o.action_id as other_action_id, o.scope, o.prompt_id
  from scoped as s
  join intermediate.int_action_targets as o
    on o.project_id = s.project_id
    and o.action_id <> s.action_id
    and cast(o.completed_at as date) between s.before_from - 14 and coalesce(s.after_to, s.after_from + 27)
),
control_excluded as (
  -- A prompt another overlapping action targets moves for that reason: not a control. Project-wide actions
  -- raise targeted and control prompts alike and cancel out in net_delta_pp, so they exclude nothing.
  select distinct action_id, prompt_id
  from overlapping
  where scope = 'targeted'
),
answers as (
  -- Every answer of the project in either window: targeted (by the action), control, or neither.
  select
    s.action_id,
    c.chat_id,
    c.brand_mentioned,
    c.chat_date between s.before_from and s.before_to as in_before,
    c.chat_date between s.after_from and s.after_to as in_after,
    t.prompt_id is not null as is_targeted,
    t.prompt_id is null and x.prompt_id is null as is_control,
    c.prompt_id
  from scoped as s
  join intermediate.int_opportunity_chats as c
    on c.project_id = s.project_id
    and (c.chat_date between s.before_from and s.before_to or c.chat_date between s.after_from and s.after_to)
  left join intermediate.int_action_targets as t on t.action_id = s.action_id and t.prompt_id = c.prompt_id
  left join control_excluded as x on x.action_id = s.action_id and x.prompt_id = c.prompt_id
),
counts as (
  select
    action_id,
    count(*) filter (where is_targeted and in_before) as before_responses,
    count(*) filter (where is_targeted and in_before and brand_mentioned) as before_mentions,
    count(*) filter (where is_targeted and in_after) as after_responses,
    count(*) filter (where is_targeted and in_after and brand_mentioned) as after_mentions,
    count(*) filter (where is_control and in_before) as control_before_responses,
    count(*) filter (where is_control and in_before and brand_mentioned) as control_before_mentions,
    count(*) filter (where is_control and in_after) as control_after_responses,
    count(*) filter (where is_control and in_after and brand_mentioned) as control_after_mentions,
    count(distinct prompt_id) filter (where is_control) as control_prompts
  from answers
  group by action_id
),
rates as (
  select
    s.*,
    coalesce(k.before_responses, 0) as before_responses,
    coalesce(k.before_mentions, 0) as before_mentions,
    coalesce(k.after_responses, 0) as after_responses,
    coalesce(k.after_mentions, 0) as after_mentions,
    coalesce(k.control_prompts, 0) as control_prompts,
    k.before_mentions / nullif(k.before_responses, 0) as p1,
    k.after_mentions / nullif(k.after_responses, 0) as p2,
    k.control_before_mentions / nullif(k.control_before_responses, 0) as control_p1,
    k.control_after_mentions / nullif(k.control_after_responses, 0) as control_p2
  from scoped as s
  left join counts as k on k.action_id = s.action_id
),
overlap_counts as (
  select action_id, count(distinct other_action_id) as overlapping_actions
  from overlapping
  group by action_id
),
measured as (
  select
    w.*,
    100 * (p2 - p1) as delta_pp,
    -- Newcombe's interval of the change from the two windows' Wilson intervals (macros/stats.sql)
    100 * newcombe_low(after_mentions, after_responses, before_mentions, before_responses) as delta_ci_low_pp,
    100 * newcombe_high(after_mentions, after_responses, before_mentions, before_responses) as delta_ci_high_pp,
    case when w.scope = 'targeted' then 100 * (control_p2 - control_p1) end as control_delta_pp
  from rates as w
)
select
  m.action_id,
  m.project_id,
  a.title,
  a.category,
  a.targets,
  m.completed_at,
  m.scope,
  m.targeted_prompts,
  m.before_from,
  m.before_to,
  m.after_from,
  m.after_to,
  m.before_responses,
  m.before_mentions,
  m.p1 as before_visibility,
  m.after_responses,
  m.after_mentions,
  m.p2 as after_visibility,
  m.delta_pp,
  m.delta_ci_low_pp,
  m.delta_ci_high_pp,
  m.delta_ci_low_pp > 0 or m.delta_ci_high_pp < 0 as significant,
  a.expected_impact_min,
  a.expected_impact_max,
  case
    when m.delta_pp is null or a.expected_impact_min is null or a.expected_impact_max is null then null
    when m.delta_pp < a.expected_impact_min then 'below'
    when m.delta_pp > a.expected_impact_max then 'above'
    else 'within'
  end as vs_expected,
  case when m.scope = 'targeted' then m.control_prompts end as control_prompts,
  m.control_delta_pp,
  m.delta_pp - m.control_delta_pp as net_delta_pp,
  coalesce(oc.overlapping_actions, 0) as overlapping_actions,
  case
    when m.delta_pp is not null then 'measured'
    when m.before_responses = 0 then 'no_baseline'
    else 'awaiting_data'
  end as status
from measured as m
join actions as a on a.action_id = m.action_id
left join overlap_counts as oc on oc.action_id = m.action_id
