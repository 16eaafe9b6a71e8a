/* @report
title: Prompt opportunities
description: |
  Prompts worth working on, per project and provider (`all` pools the providers), over the 28 days ending on the
  project's last complete day, from marts.prompt_opportunities, in two lists: `win`, the prompts where the best
  tracked competitor is named more often than the brand beyond sampling noise, ranked by
  opportunity_searches_per_month (demand × intent weight × the lower 95% bound of the competitor's lead), and then
  `defend`, the prompts no competitor is shown to lead, ranked by defend_searches_per_month (demand × intent weight
  × the brand's visibility). Both in intent-weighted searches per month, between 0 and the demand (not 0–100
  scores; docs/opportunities.md). Only listed prompts: active at the window's end with at least 30 answers in the
  window over all providers (a deactivated prompt or one with a handful of answers is not ranked). Demand filled with the
  project's median is flagged (demand_imputed). Visibility shares come with their n and a Wilson 95% interval.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  provider: AI provider id, or all
  list: win (a competitor leads beyond sampling noise) or defend (none is shown to lead)
  score_rank: 1 = best score of the project on this provider within its list
  prompt_content: the prompt's current text
  prompt_id: prompt
  window_from: first day of the window
  window_to: last day of the window
  opportunity_searches_per_month: "win: demand × intent_weight × gap_ci_low_pp / 100, in searches per month; 0 on defend rows"
  defend_searches_per_month: "defend: demand × intent_weight × visibility_pct / 100, in searches per month; empty on win rows"
  gap_pp: best competitor's visibility − the brand's, percentage points (> 0 when the competitor leads)
  gap_ci_low_pp: Newcombe 95% lower bound of gap_pp
  gap_ci_high_pp: Newcombe 95% upper bound of gap_pp
  prompt_responses: the prompt's answers over all providers in the window (at least 30 to be listed)
  responses: answers in the window (n)
  brand_mentions: answers naming the own brand (numerator of visibility_pct)
  visibility_pct: 100 × brand_mentions / responses
  visibility_ci_low_pct: Wilson 95% lower bound, percent
  visibility_ci_high_pct: Wilson 95% upper bound, percent
  best_competitor: the tracked competitor named in most answers
  best_competitor_mentions: answers naming it (numerator of best_competitor_visibility_pct)
  best_competitor_visibility_pct: 100 × best_competitor_mentions / responses
  best_competitor_visibility_ci_low_pct: Wilson 95% lower bound of best_competitor_visibility_pct
  best_competitor_visibility_ci_high_pct: Wilson 95% upper bound of best_competitor_visibility_pct
  demand: estimated monthly search demand (searches per month)
  demand_imputed: demand is the project's median, not the prompt's own (the prompt has none in the overview)
  intent: the prompt's intent
*/
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = prompt_opportunities.project_id) as project_name, project_id,
  provider, list, score_rank, prompt_content, prompt_id, window_from, window_to,
  opportunity_searches_per_month, defend_searches_per_month, gap_pp, gap_ci_low_pp, gap_ci_high_pp,
  prompt_responses, responses, brand_mentions, visibility_pct, visibility_ci_low_pct, visibility_ci_high_pct,
  best_competitor, best_competitor_mentions, best_competitor_visibility_pct, best_competitor_visibility_ci_low_pct,
  best_competitor_visibility_ci_high_pct,
  demand, demand_imputed, intent
from marts.prompt_opportunities
where is_listed and ($project is null or project_id = $project)
order by project_id, provider, list desc, score_rank, prompt_id
