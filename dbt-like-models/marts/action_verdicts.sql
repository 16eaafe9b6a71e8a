/* @model
kind: table
description: |
  What a decision-maker reads about each completed action: its effect after partial pooling with the team's other
  actions (the shrunk estimate), its 95% interval, the probabilities that it helped and that it did what was
  promised, the verdict, and how many more days of data a clearer answer needs; the unpooled estimate of
  marts.action_impact stays beside it.

  - Model (hierarchical normal, Gelman et al., BDA3 §5.4, the "eight schools", with τ integrated on a grid; not a
    plug-in empirical Bayes): each measured action's unpooled estimate y ~ N(θ, s²), s = its 95% half-width /
    1.959964 (a placebo_brands interval with a t quantile counts as the wider normal one). An action with an
    expected range is measured against its promise, in half-widths h of its range (at least half a point): ζ = (θ −
    the middle of its range) / h, ζ ~ N(μ, τ²) over the team's actions with a range (the portfolio), μ ~ N(0, 0.5²)
    (on average a team's actions land within half a half-width of the middle of what they promised), τ
    half-normal of scale 0.5: a promise is read as a range that holds about 9 times in 10, the portfolio's own
    record (μ, τ) overriding it as actions accrue. An action without a range: θ ~ N(μ_c, τ_c²) over its
    category's actions without one, μ_c flat, τ_c in points with a half-Cauchy prior of scale 2 points. Each τ on
    a grid of 101 points (0 to 4 half-widths, 0 to 25 points). The moment estimate of τ² (as
    marts.action_impact_by_category has it) is often 0 with a few actions, which would collapse every action onto
    the pooled mean; integrating τ keeps that uncertainty.
  - Given τ, θ's posterior is normal: the pool's other actions (and μ's prior) give μ the prior N(m₋, V₋)
    (inverse-variance mean of their y with weights 1 / (s² + τ²)), so θ ~ N(anchor + m₋, τ² + V₋) before the
    action's own y; an action alone in a pool without a prior on μ keeps its unpooled estimate. Over τ's posterior
    the effect is a mixture: effect_pp its mean, the interval its mean ± 1.959964 × its sd, p_positive and
    p_within_expected its exact probabilities.
  - vs_expected: below / above when the whole interval is under / over the expected range, within when inside it;
    inconclusive when it straddles an edge, or the estimate rests on one treated prompt, or the unpooled estimate
    disagrees (lies on another side of an edge than the verdict: the pooled and the action's own design must agree).
  - days_to_decide: the fewest more days of after window (the action's sampling variance falling as L / (L + d)
    with L after days, the other actions and τ's posterior held) after which the posterior interval no longer
    straddles the nearest edge of the expected range, the effect held at its posterior mean (its expected value
    later); 0 when that holds already; null without a range, on one treated prompt, or beyond 365 days.
  Assumes the actions' estimates independent given their effects, and exchangeable inside a pool (their distances
  from their promises alike).
grain: one row per team and measured action (marts.action_impact status = measured)
columns:
  team_id: the config's team
  project_id: project
  title: the action's title
  category: "the action category ('uncategorized' when the API gives none)"
  action_id: the action
  method: the unpooled estimate's design (marts.action_impact.method)
  n_treated_prompts: treated prompts in the unpooled estimate
  n_pooled_actions: measured actions in the action's pool (the team's actions with a range; without one, its category's), the action included
  unpooled_effect_pp: marts.action_impact.effect_pp
  unpooled_ci_low_pp: marts.action_impact.effect_ci_low_pp
  unpooled_ci_high_pp: marts.action_impact.effect_ci_high_pp
  effect_pp: the shrunk estimate (posterior mean), percentage points
  effect_sd_pp: its posterior standard deviation
  effect_ci_low_pp: lower bound of the 95% interval (posterior mean − 1.959964 sd)
  effect_ci_high_pp: upper bound
  pooled_effect_pp: what the action is shrunk toward, posterior mean (its range's middle + the portfolio's mean distance from the middle; without a range, its category's mean)
  tau_pp: posterior mean of τ, the spread of true effects around the pooled mean (points)
  shrinkage: "how far the estimate moved from unpooled to pooled: (unpooled − shrunk) / (unpooled − pooled), 0..1; null when they coincide"
  expected_impact_min: the action's expected impact, low end (points)
  expected_impact_max: high end
  vs_expected: below | within | above | inconclusive (null without a range)
  p_positive: posterior probability that the effect is above 0
  p_within_expected: posterior probability that it lies in the expected range (null without a range)
  days_to_decide: more days of after window until the posterior interval clears the nearest edge of the range (0 when conclusive; null without a range, on one treated prompt, or beyond a year)
audits:
  - unique: [team_id, action_id]
  - not_null: [team_id, action_id, project_id, category, effect_pp, effect_sd_pp, effect_ci_low_pp, effect_ci_high_pp, p_positive]
  - accepted_values: {column: vs_expected, values: [below, within, above, inconclusive]}
  - expression: {sql: "p_positive between 0 and 1 and (p_within_expected is null or p_within_expected between 0 and 1)", name: probabilities_in_range}
  - expression: {sql: "effect_pp between effect_ci_low_pp and effect_ci_high_pp", name: effect_inside_interval}
*/
with impact as (
  -- the expected range as numbers (a fixture's all-null column has no type of its own)
  select * replace (
    cast(expected_impact_min as double) as expected_impact_min, cast(expected_impact_max as double) as expected_impact_max
  )
  from marts.action_impact
),
measured as (
  select
    team_id, action_id, project_id, title, coalesce(category, 'uncategorized') as category, method,
    n_treated_prompts,
    -- the effect against the promise: its distance from the middle of the expected range (the effect itself
    -- without a range); the team's actions with a range are pooled as one portfolio
    case when expected_impact_min is not null and expected_impact_max is not null then 'portfolio'
      else coalesce(category, 'uncategorized') end as pool,
    coalesce((expected_impact_min + expected_impact_max) / 2, 0) as anchor,
    -- the unit a pool is measured in: an action with a range in half-widths of its range (a promise of 8–15 points
    -- claims more room than one of 3–4), at least half a point; an action without one in points
    case when expected_impact_min is not null and expected_impact_max is not null
      then greatest(abs(expected_impact_max - expected_impact_min) / 2, 0.5) else 1 end as scale,
    effect_pp as y_unpooled,
    effect_ci_low_pp,
    effect_ci_high_pp,
    ((effect_ci_high_pp - effect_ci_low_pp) / (2 * 1.959964)) ^ 2 as s2_pp,
    least(expected_impact_min, expected_impact_max) as range_min,
    greatest(expected_impact_min, expected_impact_max) as range_max,
    after_to - after_from + 1 as after_days
  from impact
  where status = 'measured' and effect_ci_high_pp > effect_ci_low_pp
),
scaled as (
  -- y and s² in the pool's unit
  select *, (y_unpooled - anchor) / scale as y, s2_pp / scale ^ 2 as s2 from measured
),
tau_grid as (
  -- τ on 101 points: for the portfolio from 0 to 4 half-widths by 0.04, for a category from 0 to 25 points by 0.25
  -- (planted and measured spreads of action effects are a few points)
  select k.promised, r.range as g, case when k.promised then r.range * 0.04 else r.range * 0.25 end as tau
  from (values (true), (false)) as k(promised)
  cross join range(0, 101) as r
),
category_sums as (
  select
    m.team_id, m.pool, g.promised, g.g, g.tau,
    count(*) as k,
    sum(1 / (m.s2 + g.tau ^ 2)) as sw,
    sum(m.y / (m.s2 + g.tau ^ 2)) as swy,
    sum(m.y ^ 2 / (m.s2 + g.tau ^ 2)) as swy2,
    sum(ln(m.s2 + g.tau ^ 2)) as slog,
    -- the promise's prior precision: N(0, 1) on the portfolio's mean distance from the middle of the range, in
    -- half-widths (on average actions land within what they promised)
    case when m.pool = 'portfolio' then 4.0 else 0 end as h
  from scaled as m
  join tau_grid as g on g.promised = (m.pool = 'portfolio')
  group by all
),
tau_loglik as (
  -- log p(y | τ), μ integrated out per category: −½ Σ log(s² + τ²) − ½ log Σ w − ½ Σ w (y − μ̂)²; a category of one
  -- action adds 0 (it says nothing about τ).
  -- τ's prior half-Cauchy: scale 1 half-width for the portfolio, 2 points for the categories, each shared by the
  -- team's pools of its kind.
  select
    team_id, promised, g, tau,
    sum(-0.5 * slog - 0.5 * ln(sw + h) - 0.5 * (swy2 - swy ^ 2 / (sw + h)))
      - case when promised then 0.5 * (tau / 0.5) ^ 2 else ln(1 + (tau / 2.0) ^ 2) end as ll
  from category_sums
  group by team_id, promised, g, tau
),
tau_posterior as (
  select team_id, promised, g, tau, l / sum(l) over (partition by team_id, promised) as p
  from (select *, exp(ll - max(ll) over (partition by team_id, promised)) as l from tau_loglik)
),
conditional as (
  -- θ | τ, y: the category's other actions give the prior N(m₋, τ² + V₋); none: a flat prior.
  select
    m.team_id, m.action_id, t.tau, t.p, m.anchor, m.scale, m.y, m.s2, m.anchor + m.scale * c.swy / (c.sw + c.h) as mu_hat,
    c.sw + c.h - 1 / (m.s2 + t.tau ^ 2) as sw_other,
    c.swy - m.y / (m.s2 + t.tau ^ 2) as swy_other
  from scaled as m
  join category_sums as c on c.team_id = m.team_id and c.pool = m.pool
  join tau_posterior as t on t.team_id = m.team_id and t.promised = c.promised and t.g = c.g
),
conditional_posterior as (
  select
    *,
    case when sw_other > 1e-12 then t2 + 1 / sw_other end as prior_var,
    case when sw_other > 1e-12 then swy_other / sw_other end as prior_mean
  from (select *, tau ^ 2 as t2 from conditional)
),
conditional_moments as (
  select
    *,
    -- back in points
    scale ^ 2 * coalesce(1 / (1 / s2 + 1 / prior_var), s2) as v,
    anchor + scale * coalesce((y / s2 + prior_mean / prior_var) / (1 / s2 + 1 / prior_var), y) as m
  from conditional_posterior
),
mixture as (
  select
    c.team_id,
    c.action_id,
    sum(c.p * c.m) as mean,
    greatest(sum(c.p * (c.v + c.m ^ 2)) - sum(c.p * c.m) ^ 2, 0) as var,
    -- the spread of the conditional means over τ (kept as it is when more days shrink each v)
    greatest(sum(c.p * c.m ^ 2) - sum(c.p * c.m) ^ 2, 0) as between_var,
    sum(c.p * c.mu_hat) as category_mean,
    sum(c.p * c.tau) as tau_mean,
    sum(c.p * normal_sf(-c.m / sqrt(c.v))) as p_positive,
    sum(c.p * (normal_sf((m0.range_min - c.m) / sqrt(c.v)) - normal_sf((m0.range_max - c.m) / sqrt(c.v))))
      as p_within_expected
  from conditional_moments as c
  join measured as m0 on m0.team_id = c.team_id and m0.action_id = c.action_id
  group by c.team_id, c.action_id
),
margins as (
  -- How far the posterior mean is from the nearest edge of the expected range: conclusive once the half-width is
  -- under it.
  select
    x.team_id,
    x.action_id,
    case
      when m.range_min is null or m.range_max is null or m.n_treated_prompts < 2 then null
      when x.mean < m.range_min then m.range_min - x.mean
      when x.mean > m.range_max then x.mean - m.range_max
      else least(x.mean - m.range_min, m.range_max - x.mean)
    end as margin,
    m.after_days
  from mixture as x
  join measured as m on m.team_id = x.team_id and m.action_id = x.action_id
),
future as (
  -- The posterior sd after d more days: each τ's conditional variance with s² × L / (L + d).
  select
    c.team_id,
    c.action_id,
    d.range as days,
    sum(c.p * c.scale ^ 2 * coalesce(
      1 / ((mg.after_days + d.range) / (c.s2 * mg.after_days) + 1 / c.prior_var),
      c.s2 * mg.after_days / (mg.after_days + d.range)
    )) as v_within
  from conditional_moments as c
  join margins as mg on mg.team_id = c.team_id and mg.action_id = c.action_id and mg.margin > 0
  cross join range(0, 366) as d
  group by c.team_id, c.action_id, d.range
),
decide as (
  select f.team_id, f.action_id, min(f.days) as days
  from future as f
  join mixture as x on x.team_id = f.team_id and x.action_id = f.action_id
  join margins as mg on mg.team_id = f.team_id and mg.action_id = f.action_id
  where 1.959964 * sqrt(f.v_within + x.between_var) <= mg.margin
  group by f.team_id, f.action_id
),
counts as (
  select team_id, pool, count(*) as n_pooled_actions from measured group by team_id, pool
),
final as (
  select
    m.*,
    -- Rounded to 1e-9 points: sums of doubles, whose last bits depend on the order DuckDB's threads add them.
    round(x.mean, 9) as effect_pp,
    round(sqrt(x.var), 9) as effect_sd_pp,
    round(x.mean - 1.959964 * sqrt(x.var), 9) as effect_ci_low_pp_shrunk,
    round(x.mean + 1.959964 * sqrt(x.var), 9) as effect_ci_high_pp_shrunk,
    round(x.category_mean, 9) as pooled_effect_pp,
    round(x.tau_mean, 9) as tau_pp,
    round(least(greatest(x.p_positive, 0), 1), 9) as p_positive,
    case when m.range_min is not null and m.range_max is not null
      then round(least(greatest(x.p_within_expected, 0), 1), 9) end as p_within_expected,
    k.n_pooled_actions,
    mg.margin,
    d.days
  from measured as m
  join mixture as x on x.team_id = m.team_id and x.action_id = m.action_id
  join counts as k on k.team_id = m.team_id and k.pool = m.pool
  join margins as mg on mg.team_id = m.team_id and mg.action_id = m.action_id
  left join decide as d on d.team_id = m.team_id and d.action_id = m.action_id
)
select
  team_id,
  project_id,
  title,
  category,
  action_id,
  method,
  n_treated_prompts,
  n_pooled_actions,
  y_unpooled as unpooled_effect_pp,
  effect_ci_low_pp as unpooled_ci_low_pp,
  effect_ci_high_pp as unpooled_ci_high_pp,
  effect_pp,
  effect_sd_pp,
  effect_ci_low_pp_shrunk as effect_ci_low_pp,
  effect_ci_high_pp_shrunk as effect_ci_high_pp,
  pooled_effect_pp,
  tau_pp,
  case when abs(y_unpooled - pooled_effect_pp) > 1e-9
    then round(least(greatest((y_unpooled - effect_pp) / (y_unpooled - pooled_effect_pp), 0), 1), 9) end
    as shrinkage,
  range_min as expected_impact_min,
  range_max as expected_impact_max,
  case
    when range_min is null or range_max is null then null
    when n_treated_prompts < 2 then 'inconclusive'
    when effect_ci_high_pp_shrunk < range_min and y_unpooled < range_min then 'below'
    when effect_ci_low_pp_shrunk > range_max and y_unpooled > range_max then 'above'
    when effect_ci_low_pp_shrunk >= range_min and effect_ci_high_pp_shrunk <= range_max
      and y_unpooled between range_min and range_max then 'within'
    else 'inconclusive'
  end as vs_expected,
  p_positive,
  p_within_expected,
  case when margin is not null then cast(days as bigint) end as days_to_decide
from final
