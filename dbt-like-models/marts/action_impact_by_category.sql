/* @model
kind: table
description: |
  What did a kind of action do on average, and what did the team's actions do together? Single actions rest on a
  few prompts and are rarely conclusive; pooled, they can be. Per team and action category, and one row per team
  with category = 'all' (the portfolio), the measured actions of marts.action_impact pooled by inverse variance.

  - Each action's variance is s² = (half-width / 1.959964)², its 95% interval read back as a normal one (a
    placebo_brands interval with a t quantile counts as the wider normal interval it is).
  - Between-action variance τ² (DerSimonian–Laird): with w = 1/s², μ_FE = Σ w·y / Σ w, Q = Σ w (y − μ_FE)²,
    τ² = max(0, (Q − (k − 1)) / (Σ w − Σ w² / Σ w)); identified with k ≥ 2 actions, null (taken as 0) with one.
  - Pooled effect μ = Σ w*·y / Σ w* with w* = 1 / (s² + τ²); se = 1 / √Σ w*; 95% interval μ ± 1.959964 · se.
    It estimates the mean effect of the category's actions (with τ², of actions of that kind), not each one's.
  - The pooled expected range: [Σ w*·min / Σ w*, Σ w*·max / Σ w*], the same weights over each action's expected
    range, so an estimate whose actions all hit their ranges lies inside it; null when one of the pooled actions
    has no range. vs_expected as in marts.action_impact: below / above when the whole interval is under / over
    the range, within when inside it, inconclusive when it straddles an edge.
  Assumes the actions' estimates are independent (actions of one project share some control prompts and
  competitors, so the interval is somewhat narrow when they do) and the normal approximation.
grain: one row per team and category with a measured action, plus one row per team with category = 'all' (none for a team without a measured action)
columns:
  team_id: the config's team
  category: "the action category ('uncategorized' when the API gives none), or 'all' for every measured action of the team"
  n_actions: measured actions pooled (marts.action_impact status = measured)
  n_completed: completed actions of the category (measured or not)
  n_projects: projects the pooled actions belong to
  effect_pp: the pooled effect, percentage points
  effect_se_pp: its standard error (between-action variance included)
  effect_ci_low_pp: lower bound of the 95% interval (normal quantile)
  effect_ci_high_pp: upper bound
  tau2_pp2: between-action variance τ² (squared points; null with one action, where it is not identified)
  q_statistic: Cochran's Q of the pooled actions (null with one)
  significant: the interval excludes 0
  expected_impact_min: the pooled expected range, low end (points; null when a pooled action has none)
  expected_impact_max: the pooled expected range, high end
  vs_expected: below | within | above | inconclusive (the interval against the pooled range; null without one)
  p_positive: probability that the pooled effect is above 0 (flat prior, normal approximation)
  p_within_expected: probability that it lies in the pooled expected range (same; null without a range)
audits:
  - unique: [team_id, category]
  - not_null: [team_id, category, n_actions, n_completed, effect_pp, effect_se_pp, effect_ci_low_pp, effect_ci_high_pp]
  - accepted_values: {column: vs_expected, values: [below, within, above, inconclusive]}
  - expression: {sql: "effect_pp between effect_ci_low_pp and effect_ci_high_pp", name: effect_inside_interval}
  - expression: {sql: "tau2_pp2 is null or tau2_pp2 >= 0", name: tau2_not_negative}
  - expression: {sql: "(p_positive is null or p_positive between 0 and 1) and (p_within_expected is null or p_within_expected between 0 and 1)", name: probabilities_in_range}
*/
with completed as (
  select team_id, category, project_id, effect_pp, effect_ci_low_pp, effect_ci_high_pp,
    least(expected_impact_min, expected_impact_max) as range_min,
    greatest(expected_impact_min, expected_impact_max) as range_max,
    status = 'measured' and effect_ci_high_pp > effect_ci_low_pp as pooled
  from marts.action_impact
),
groups as (
  -- Every action twice: under its category and under 'all'.
  select team_id, coalesce(category, 'uncategorized') as category, * exclude (team_id, category) from completed
  union all
  select team_id, 'all' as category, * exclude (team_id, category) from completed
),
measured as (
  select
    *,
    effect_pp as y,
    1 / ((effect_ci_high_pp - effect_ci_low_pp) / (2 * 1.959964)) ^ 2 as w
  from groups
  where pooled
),
fixed as (
  select team_id, category, sum(w * y) / sum(w) as mu_fe, sum(w) as sw, sum(w * w) as sw2, count(*) as k
  from measured
  group by team_id, category
),
heterogeneity as (
  select
    f.team_id,
    f.category,
    f.k,
    case when f.k >= 2 then sum(m.w * (m.y - f.mu_fe) ^ 2) end as q,
    case when f.k >= 2 then greatest(0, (sum(m.w * (m.y - f.mu_fe) ^ 2) - (f.k - 1)) / (f.sw - f.sw2 / f.sw)) end
      as tau2
  from fixed as f
  join measured as m on m.team_id = f.team_id and m.category = f.category
  group by f.team_id, f.category, f.k, f.mu_fe, f.sw, f.sw2
),
pooled as (
  select
    m.team_id,
    m.category,
    count(*) as n_actions,
    count(distinct m.project_id) as n_projects,
    -- Rounded to 1e-9 points: sums of doubles, whose last bits depend on the order DuckDB's threads add them.
    round(sum(m.y / (1 / m.w + coalesce(h.tau2, 0))) / sum(1 / (1 / m.w + coalesce(h.tau2, 0))), 9) as effect_pp,
    round(1 / sqrt(sum(1 / (1 / m.w + coalesce(h.tau2, 0)))), 9) as effect_se_pp,
    round(sum(m.y / (1 / m.w + coalesce(h.tau2, 0))) / sum(1 / (1 / m.w + coalesce(h.tau2, 0)))
      - 1.959964 / sqrt(sum(1 / (1 / m.w + coalesce(h.tau2, 0)))), 9) as effect_ci_low_pp,
    round(sum(m.y / (1 / m.w + coalesce(h.tau2, 0))) / sum(1 / (1 / m.w + coalesce(h.tau2, 0)))
      + 1.959964 / sqrt(sum(1 / (1 / m.w + coalesce(h.tau2, 0)))), 9) as effect_ci_high_pp,
    round(any_value(h.tau2), 9) as tau2_pp2,
    round(any_value(h.q), 9) as q_statistic,
    case when count(m.range_min) = count(*) and count(m.range_max) = count(*) then
      round(sum(m.range_min / (1 / m.w + coalesce(h.tau2, 0))) / sum(1 / (1 / m.w + coalesce(h.tau2, 0))), 9)
    end as expected_impact_min,
    case when count(m.range_min) = count(*) and count(m.range_max) = count(*) then
      round(sum(m.range_max / (1 / m.w + coalesce(h.tau2, 0))) / sum(1 / (1 / m.w + coalesce(h.tau2, 0))), 9)
    end as expected_impact_max
  from measured as m
  join heterogeneity as h on h.team_id = m.team_id and h.category = m.category
  group by m.team_id, m.category
),
counts as (
  select team_id, category, count(*) as n_completed from groups group by team_id, category
)
select
  p.team_id,
  p.category,
  p.n_actions,
  c.n_completed,
  p.n_projects,
  p.effect_pp,
  p.effect_se_pp,
  p.effect_ci_low_pp,
  p.effect_ci_high_pp,
  p.tau2_pp2,
  p.q_statistic,
  p.effect_ci_low_pp > 0 or p.effect_ci_high_pp < 0 as significant,
  p.expected_impact_min,
  p.expected_impact_max,
  case
    when p.expected_impact_min is null or p.expected_impact_max is null then null
    when p.effect_ci_high_pp < p.expected_impact_min then 'below'
    when p.effect_ci_low_pp > p.expected_impact_max then 'above'
    when p.effect_ci_low_pp >= p.expected_impact_min
      and p.effect_ci_high_pp <= p.expected_impact_max then 'within'
    else 'inconclusive'
  end as vs_expected,
  normal_sf(-p.effect_pp / p.effect_se_pp) as p_positive,
  normal_sf((p.expected_impact_min - p.effect_pp) / p.effect_se_pp)
    - normal_sf((p.expected_impact_max - p.effect_pp) / p.effect_se_pp) as p_within_expected
from pooled as p
join counts as c on c.team_id = p.team_id and c.category = p.category
