/* @report
title: Action impact
description: |
  Did completed actions raise the brand's visibility where they aimed? Per completed action (completed inside
  the range), the own brand's visibility on the targeted prompts before and after, with the answers it rests on,
  the estimated effect in percentage points with its 95% interval, and the verdict against the action's expected
  impact, from marts.action_impact (its design is in docs/action-impact.md). The columns are those of the mart's
  estimate that exist in the warehouse, in the mart's order: the mart's estimator may add columns (effect_pp,
  n_treated_prompts, method, ...) and the report follows it.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
  from: {type: DATE, default: null, description: "first completion day; no lower bound when omitted"}
  to: {type: DATE, default: null, description: "last completion day; no upper bound when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  title: the action's title
  action_id: the action
  completed_at: when it reached completed (UTC)
  scope: targeted or project
  targeted_prompts: prompts in scope (n_treated_prompts from a causal estimator)
  n_treated_prompts: prompts the action targets, in the estimate
  n_control_prompts: untargeted prompts in the estimate's control group
  control_prompts: answered prompts in the control group
  before_from: first day of the before window
  before_to: last day of the before window
  after_from: first day of the after window
  after_to: last day of the after window (null while it has not begun)
  before_responses: answers of the targeted prompts before (n)
  before_mentions: of which naming the own brand
  before_visibility_pct: 100 × before_mentions / before_responses
  after_responses: answers of the targeted prompts after (n)
  after_mentions: of which naming the own brand
  after_visibility_pct: 100 × after_mentions / after_responses
  "effect_pp, delta_pp, net_delta_pp, …": the mart's estimate(s) in percentage points, each with its `_ci_low_pp` / `_ci_high_pp` interval where the mart has one
  significant: the effect's interval excludes 0
  method: how the mart estimated the effect
  expected_impact_min: expected impact, low end (pp)
  expected_impact_max: expected impact, high end (pp)
  vs_expected: below, within, above (or inconclusive) against the expected range
  p_positive: probability that the effect is above 0 (flat prior, normal approximation)
  p_within_expected: probability that the effect lies in the expected range (the same way)
  days_to_decide: more days of after window until the verdict could be conclusive (0 when it is; null when never within a year)
  status: measured, awaiting_data or no_baseline
*/
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = action_impact.project_id) as project_name,
  project_id,
  title,
  action_id,
  columns(c -> c in (
    'completed_at', 'scope', 'targeted_prompts', 'n_treated_prompts',
    'n_control_prompts', 'control_prompts', 'before_from', 'before_to', 'after_from', 'after_to',
    'before_responses', 'before_mentions', 'before_visibility_pct', 'after_responses', 'after_mentions',
    'after_visibility_pct', 'effect_pp', 'effect_ci_low_pp', 'effect_ci_high_pp', 'delta_pp', 'delta_ci_low_pp',
    'delta_ci_high_pp', 'control_delta_pp', 'net_delta_pp', 'net_delta_ci_low_pp', 'net_delta_ci_high_pp',
    'significant', 'method', 'expected_impact_min', 'expected_impact_max', 'vs_expected', 'p_positive',
    'p_within_expected', 'days_to_decide', 'status'))
from marts.action_impact
where ($project is null or project_id = $project)
  and ($from is null or completed_at::date >= $from)
  and ($to is null or completed_at::date <= $to)
order by project_id, completed_at, action_id
