/* @report
title: Prompt opportunities
description: |
  Prompts worth working on, per project and provider (`all` pools the providers), over the 28 days ending on the
  project's last complete day, ranked by opportunity score (monthly searches whose answers favour someone else; the
  formula is in docs/analytics.md), from marts.prompt_opportunities. Visibility shares come with their n and a
  Wilson 95% interval.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
columns:
  project_id: project
  provider: AI provider id, or all
  score_rank: 1 = best score of the project on this provider
  prompt_id: prompt
  prompt_content: the prompt's current text
  window_from: first day of the window
  window_to: last day of the window
  opportunity_score: demand × intent_weight × (1 − position-weighted visibility) × best competitor visibility
  responses: answers in the window (n)
  brand_mentions: answers naming the own brand (numerator of visibility)
  visibility: brand_mentions / responses (0..1)
  visibility_ci_low: Wilson 95% lower bound (0..1)
  visibility_ci_high: Wilson 95% upper bound (0..1)
  best_competitor: the tracked competitor named in most answers
  best_competitor_mentions: answers naming it (numerator of best_competitor_visibility)
  best_competitor_visibility: best_competitor_mentions / responses (0..1)
  best_competitor_visibility_ci_low: Wilson 95% lower bound of best_competitor_visibility
  best_competitor_visibility_ci_high: Wilson 95% upper bound of best_competitor_visibility
  demand: estimated monthly search demand
  intent: the prompt's intent
*/
select
  project_id, provider, score_rank, prompt_id, prompt_content, window_from, window_to,
  round(opportunity_score, 2) as opportunity_score,
  responses, brand_mentions, round(visibility, 4) as visibility,
  round(wilson_low(brand_mentions, responses), 4) as visibility_ci_low,
  round(wilson_high(brand_mentions, responses), 4) as visibility_ci_high,
  best_competitor, best_competitor_mentions, round(best_competitor_visibility, 4) as best_competitor_visibility,
  round(best_competitor_visibility_ci_low, 4) as best_competitor_visibility_ci_low,
  round(best_competitor_visibility_ci_high, 4) as best_competitor_visibility_ci_high,
  demand, intent
from marts.prompt_opportunities
where ($project is null or project_id = $project)
order by project_id, provider, score_rank, prompt_id
