/* @report
title: Competitor gaps
description: |
  Where a tracked competitor is named and the brand is not: per project, prompt, provider (`all` pools the
  providers) and competitor, over the 28 days ending on the project's last complete day, from marts.competitor_gaps,
  largest gap share first. A gap answer names the competitor and not the own brand; brand_absent marks prompts
  where the brand is never named. Shares come with their n and a Wilson 95% interval.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
columns:
  project_id: project id
  project_name: project name (the API's, as staging.projects has it now)
  provider: AI provider id, or all
  competitor_name: tracked competitor
  prompt_id: prompt
  prompt_content: the prompt's current text
  window_from: first day of the window
  window_to: last day of the window
  responses: answers to the prompt in the window (n)
  gap_responses: answers naming the competitor and not the brand (numerator of gap_share)
  gap_share: gap_responses / responses (0..1)
  gap_share_ci_low: Wilson 95% lower bound (0..1)
  gap_share_ci_high: Wilson 95% upper bound (0..1)
  competitor_mentions: answers naming the competitor (numerator of competitor_visibility)
  competitor_visibility: competitor_mentions / responses (0..1)
  competitor_visibility_ci_low: Wilson 95% lower bound of competitor_visibility
  competitor_visibility_ci_high: Wilson 95% upper bound of competitor_visibility
  brand_mentions: answers naming the own brand (numerator of brand_visibility)
  brand_visibility: brand_mentions / responses (0..1)
  brand_visibility_ci_low: Wilson 95% lower bound of brand_visibility
  brand_visibility_ci_high: Wilson 95% upper bound of brand_visibility
  visibility_gap: competitor_visibility − brand_visibility
  brand_absent: the brand is named in none of the answers
*/
select
  project_id, (select any_value(p.project_name) from staging.projects p where p.project_id = competitor_gaps.project_id) as project_name,
  provider, competitor_name, prompt_id, prompt_content, window_from, window_to,
  responses, gap_responses, round(gap_share, 4) as gap_share,
  round(wilson_low(gap_responses, responses), 4) as gap_share_ci_low,
  round(wilson_high(gap_responses, responses), 4) as gap_share_ci_high,
  competitor_mentions, round(competitor_visibility, 4) as competitor_visibility,
  round(competitor_visibility_ci_low, 4) as competitor_visibility_ci_low,
  round(competitor_visibility_ci_high, 4) as competitor_visibility_ci_high,
  brand_mentions, round(brand_visibility, 4) as brand_visibility,
  round(brand_visibility_ci_low, 4) as brand_visibility_ci_low,
  round(brand_visibility_ci_high, 4) as brand_visibility_ci_high,
  round(visibility_gap, 4) as visibility_gap, brand_absent
from marts.competitor_gaps
where ($project is null or project_id = $project)
order by project_id, provider, gap_share desc, gap_responses desc, competitor_name, prompt_id
