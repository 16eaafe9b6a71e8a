/* @model
kind: table
description: |
  Which prompts are worth working on, per project, over the 28 days ending on the project's last complete day, per
  provider and for all providers pooled.

  Two lists (`list`): **win**, the prompts whose answers name the best tracked competitor more often than the own
  brand beyond sampling noise (the lower 95% bound of its lead, `gap_ci_low_pp`, above 0), and **defend**, the
  prompts the brand leads, ties, or trails by less than the noise (no competitor shown to lead it). Each is ranked
  on its own (`score_rank` within project, provider and list):

  - win: `opportunity_searches_per_month = demand × intent_weight × gap_ci_low_pp / 100`, the searches a month
    whose answers a competitor leads, by the lower 95% bound of its lead: a prompt is an opportunity in proportion
    to the gap a competitor holds over the brand, as far as the sample shows it, times its demand.
  - defend: `defend_searches_per_month = demand × intent_weight × visibility_pct / 100`, the searches a month whose answers
    the brand holds (what losing them would cost); null on win rows. opportunity_searches_per_month is 0 there.

  Both in intent-weighted searches per month, between 0 and the prompt's demand: not 0–100 scores.

  The gap's interval (`gap_ci_low_pp`, `gap_ci_high_pp`) is Newcombe's hybrid score interval of the competitor's
  share minus the brand's (macros/stats.sql) over the same answers, as if the two were independent samples: the
  shares of one answer set are correlated (an answer can name both, or neither), and where naming one brand makes
  naming the other less likely the interval is a little narrow; where they go together, wide.

  Listed (`is_listed`, ranked by `score_rank`) only when the prompt is active at the window's end (it has answers on
  window_to) and has at least 30 answers in the window over all providers (`prompt_responses`): a prompt
  deactivated inside the window, or one with a handful of answers, is kept as a row but not ranked (score_rank
  null), since its shares rest on too few answers to act on. The 30 is a floor on n, not a lower-bound score: the
  provider rows of a listed prompt hold up to 28 answers each (one a day) and carry their Wilson intervals.

  - `demand` = the API's estimated monthly search demand of the prompt: `volume` of the overview endpoint (the
    reference documents it as demand, fixed per prompt text), newest window. The prompt list's `volume` is NOT
    demand (it counts the answers collected), so it is not used. A prompt missing from the overview (inactive, or
    never in an overview window) gets its project's median demand (demand_source = project_median,
    demand_imputed true): its figure is a placeholder, not the prompt's own demand.
  - `intent_weight` = how close the prompt's intent (the prompt list's `intent`) is to a purchase: transactional
    1.0, commercial 0.8, informational 0.5, navigational 0.3 (the asker wants a given site), unknown 0.5.
  - `position_weighted_visibility_pct` = 100 × Σ brand_weight / answers, brand_weight = 1 / position when the own brand is
    named, else 0 (named first counts fully, second half, ...), as in marts.brand_visibility_daily.
  - `best_competitor_visibility_pct` = the highest share (percent) of answers naming one tracked competitor: how open the
    answer space is to brands (0 when AI answers name no competitor: nothing to take).

  Before issue 54 the score was demand × intent_weight × (1 − position-weighted visibility) × best competitor
  visibility: demand ranked it almost alone, and a third of its top 10 were prompts the brand led. A win list by the point estimate alone (gap_pp > 0) was
  made, on worlds where the brand leads almost every prompt, mostly of prompts a true lead of the brand's had flipped
  by noise (3 of 5 rows on the holdout worlds of bench/alert-power.ts).
grain: one row per team, project, prompt and provider (and `all`)
columns:
  team_id: the config's team
  project_id: project
  prompt_id: prompt
  prompt_content: the prompt's current text
  provider: "AI provider id, or `all`"
  window_from: first day of the 28-day window
  window_to: last day of the window (the project's last complete day)
  responses: answers in the window
  brand_mentions: answers naming the own brand
  visibility_pct: 100 × brand_mentions / responses
  visibility_ci_low_pct: Wilson 95% lower bound of visibility_pct (n = responses), percent
  visibility_ci_high_pct: Wilson 95% upper bound of visibility_pct, percent
  position_weighted_visibility_pct: 100 × Σ (1 / position) over answers naming the brand / responses
  best_competitor_id: its competitor id (answers are counted per id, so a renamed competitor is one)
  best_competitor: the tracked competitor named in most answers (ties by name), current name
  best_competitor_mentions: answers naming it
  best_competitor_visibility_pct: 100 × best_competitor_mentions / responses (0 when none)
  best_competitor_visibility_ci_low_pct: Wilson 95% lower bound of best_competitor_visibility_pct (n = responses), percent
  best_competitor_visibility_ci_high_pct: Wilson 95% upper bound, percent
  demand: estimated monthly search demand
  demand_source: "overview | project_median"
  demand_imputed: demand is the project's median (the prompt has no demand of its own in the overview)
  prompt_responses: the prompt's answers in the window over all providers (the n of is_listed)
  last_answer_day: the prompt's last day with answers in the window
  is_listed: active at the window's end (answers on window_to) and prompt_responses >= 30; only listed prompts are ranked
  intent: the prompt's intent (null when the API gives none)
  intent_weight: documented weight of the intent
  gap_pp: best_competitor_visibility_pct − visibility_pct, percentage points; > 0 when a competitor leads
  gap_ci_low_pp: Newcombe 95% lower bound of gap_pp
  gap_ci_high_pp: Newcombe 95% upper bound of gap_pp
  list: "win (a competitor leads beyond sampling noise: gap_ci_low_pp > 0) | defend (no competitor shown to lead)"
  opportunity_searches_per_month: "win: demand × intent_weight × gap_ci_low_pp / 100, intent-weighted searches per month; 0 on defend rows"
  defend_searches_per_month: "defend: demand × intent_weight × visibility_pct / 100, the searches a month whose answers the brand holds; null on win rows"
  score_rank: 1 = the largest score of the project's listed prompts on this provider in its list (opportunity_searches_per_month on win, defend_searches_per_month on defend); null when not listed
audits:
  - unique: [team_id, project_id, prompt_id, provider]
  - not_null: [team_id, project_id, prompt_id, provider, responses, visibility_pct, position_weighted_visibility_pct, best_competitor_visibility_pct, intent_weight, opportunity_searches_per_month, is_listed]
  - expression: {sql: "position_weighted_visibility_pct between 0 and visibility_pct", name: pwv_within_visibility}
  - expression: {sql: "best_competitor_visibility_pct between 0 and 100", name: competitor_visibility_in_range}
  - expression: {sql: "opportunity_searches_per_month between 0 and coalesce(demand, 0)", name: score_within_demand}
  - expression: {sql: "(score_rank is not null) = is_listed", name: ranked_iff_listed}
  - expression: {sql: "(list = 'win') = coalesce(gap_ci_low_pp > 0, false) and coalesce(defend_searches_per_month between 0 and coalesce(demand, 0), list = 'win')", name: lists_and_defend_score}
  - accepted_values: {column: list, values: [win, defend]}
  - expression: {sql: "not is_listed or (prompt_responses >= 30 and last_answer_day = window_to)", name: listed_active_with_answers}
  - accepted_values: {column: demand_source, values: [overview, project_median]}
*/
with answers as (
  select c.*
  from intermediate.int_opportunity_chats as c
  join intermediate.int_opportunity_windows as w
    on w.team_id = c.team_id and w.project_id = c.project_id and c.chat_date between w.window_from and w.window_to
),
per_prompt as (
  select
    team_id,
    project_id,
    prompt_id,
    case when grouping(provider) = 1 then 'all' else provider end as provider,
    count(*) as responses,
    count(*) filter (where brand_mentioned) as brand_mentions,
    sum(brand_weight) as brand_weight_sum
  from answers
  group by grouping sets ((team_id, project_id, prompt_id, provider), (team_id, project_id, prompt_id))
),
activity as (
  -- The prompt's answers over all providers and its last day with answers in the window.
  select team_id, project_id, prompt_id, count(*) as prompt_responses, max(chat_date) as last_answer_day
  from answers
  group by team_id, project_id, prompt_id
),
competitor_counts as (
  select
    cc.team_id,
    cc.project_id,
    cc.prompt_id,
    case when grouping(cc.provider) = 1 then 'all' else cc.provider end as provider,
    cc.competitor_id,
    min(cc.competitor_name) as competitor_name,
    count(*) as mentions
  from intermediate.int_chat_competitors as cc
  join intermediate.int_opportunity_windows as w
    on w.team_id = cc.team_id and w.project_id = cc.project_id and cc.chat_date between w.window_from and w.window_to
  group by grouping sets (
    (cc.team_id, cc.project_id, cc.prompt_id, cc.provider, cc.competitor_id),
    (cc.team_id, cc.project_id, cc.prompt_id, cc.competitor_id)
  )
),
best_competitor as (
  select team_id, project_id, prompt_id, provider, competitor_id, competitor_name, mentions
  from competitor_counts
  qualify row_number() over (
    partition by team_id, project_id, prompt_id, provider order by mentions desc, competitor_name
  ) = 1
),
demand_served as (
  select team_id, project_id, prompt_id, volume as demand
  from staging.overview
  where volume is not null
  qualify row_number() over (partition by team_id, project_id, prompt_id order by window_to desc, requested_type) = 1
),
demand_median as (
  select team_id, project_id, median(demand) as demand
  from demand_served
  group by team_id, project_id
),
prompt_facts as (
  select
    p.team_id,
    p.project_id,
    p.prompt_id,
    p.prompt_content,
    p.intent,
    coalesce(ds.demand, dm.demand) as demand,
    case when ds.demand is not null then 'overview' when dm.demand is not null then 'project_median' end
      as demand_source,
    case p.intent
      when 'transactional' then 1.0 when 'commercial' then 0.8 when 'informational' then 0.5
      when 'navigational' then 0.3 else 0.5
    end as intent_weight
  from staging.prompts as p
  left join demand_served as ds
    on ds.team_id = p.team_id and ds.project_id = p.project_id and ds.prompt_id = p.prompt_id
  left join demand_median as dm on dm.team_id = p.team_id and dm.project_id = p.project_id
),
scored as (
  select
    pp.team_id,
    pp.project_id,
    pp.prompt_id,
    pf.prompt_content,
    pp.provider,
    w.window_from,
    w.window_to,
    pp.responses,
    pp.brand_mentions,
    pp.brand_mentions / pp.responses as visibility,
    pp.brand_weight_sum / pp.responses as position_weighted_visibility,
    bc.competitor_id as best_competitor_id,
    bc.competitor_name as best_competitor,
    coalesce(bc.mentions, 0) as best_competitor_mentions,
    coalesce(bc.mentions, 0) / pp.responses as best_competitor_visibility,
    pf.demand,
    pf.demand_source,
    pf.intent,
    coalesce(pf.intent_weight, 0.5) as intent_weight,
    a.prompt_responses,
    a.last_answer_day,
    a.last_answer_day = w.window_to and a.prompt_responses >= 30 as is_listed
  from per_prompt as pp
  join activity as a on a.team_id = pp.team_id and a.project_id = pp.project_id and a.prompt_id = pp.prompt_id
  join intermediate.int_opportunity_windows as w on w.team_id = pp.team_id and w.project_id = pp.project_id
  left join prompt_facts as pf
    on pf.team_id = pp.team_id and pf.project_id = pp.project_id and pf.prompt_id = pp.prompt_id
  left join best_competitor as bc
    on bc.team_id = pp.team_id and bc.project_id = pp.project_id and bc.prompt_id = pp.prompt_id
    and bc.provider = pp.provider
),
gaps as (
  -- The best competitor's lead over the brand on the same answers, with Newcombe's interval (macros/stats.sql).
  select
    *,
    best_competitor_visibility - visibility as gap,
    newcombe_low(best_competitor_mentions, responses, brand_mentions, responses) as gap_lo,
    newcombe_high(best_competitor_mentions, responses, brand_mentions, responses) as gap_hi,
    case when gap_lo > 0 then 'win' else 'defend' end as list,
    case when gap_lo > 0 then coalesce(demand, 0) * intent_weight * gap_lo else 0 end as win_score,
    case when not coalesce(gap_lo > 0, false) then coalesce(demand, 0) * intent_weight * visibility end
      as defend_score
  from scored
)
select
  team_id,
  project_id,
  prompt_id,
  prompt_content,
  provider,
  window_from,
  window_to,
  responses,
  brand_mentions,
  100 * visibility as visibility_pct,
  100 * wilson_low(brand_mentions, responses) as visibility_ci_low_pct,
  100 * wilson_high(brand_mentions, responses) as visibility_ci_high_pct,
  100 * position_weighted_visibility as position_weighted_visibility_pct,
  best_competitor_id,
  best_competitor,
  best_competitor_mentions,
  100 * best_competitor_visibility as best_competitor_visibility_pct,
  100 * wilson_low(best_competitor_mentions, responses) as best_competitor_visibility_ci_low_pct,
  100 * wilson_high(best_competitor_mentions, responses) as best_competitor_visibility_ci_high_pct,
  demand,
  demand_source,
  intent,
  intent_weight,
  demand_source = 'project_median' as demand_imputed,
  prompt_responses,
  last_answer_day,
  is_listed,
  100 * gap as gap_pp,
  100 * gap_lo as gap_ci_low_pp,
  100 * gap_hi as gap_ci_high_pp,
  list,
  win_score as opportunity_searches_per_month,
  defend_score as defend_searches_per_month,
  case when is_listed then row_number() over (
    partition by team_id, project_id, provider, is_listed, list
    order by coalesce(win_score, 0) + coalesce(defend_score, 0) desc, gap desc, prompt_id
  ) end as score_rank
from gaps
