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
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  provider: AI provider id, or all
  competitor_name: tracked competitor
  prompt_content: the prompt's current text
  prompt_id: prompt
  window_from: first day of the window
  window_to: last day of the window
  responses: answers to the prompt in the window (n)
  gap_responses: answers naming the competitor and not the brand (numerator of gap_share_pct)
  gap_share_pct: 100 × gap_responses / responses
  gap_share_ci_low_pct: Wilson 95% lower bound, percent
  gap_share_ci_high_pct: Wilson 95% upper bound, percent
  competitor_mentions: answers naming the competitor (numerator of competitor_visibility_pct)
  competitor_visibility_pct: 100 × competitor_mentions / responses
  competitor_visibility_ci_low_pct: Wilson 95% lower bound of competitor_visibility_pct
  competitor_visibility_ci_high_pct: Wilson 95% upper bound of competitor_visibility_pct
  brand_mentions: answers naming the own brand (numerator of brand_visibility_pct)
  brand_visibility_pct: 100 × brand_mentions / responses
  brand_visibility_ci_low_pct: Wilson 95% lower bound of brand_visibility_pct
  brand_visibility_ci_high_pct: Wilson 95% upper bound of brand_visibility_pct
  visibility_gap_pp: competitor_visibility_pct − brand_visibility_pct, percentage points
  brand_absent: the brand is named in none of the answers
*/
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = competitor_gaps.project_id) as project_name, project_id,
  provider, competitor_name, prompt_content, prompt_id, window_from, window_to,
  responses, gap_responses, gap_share_pct, gap_share_ci_low_pct, gap_share_ci_high_pct,
  competitor_mentions, competitor_visibility_pct, competitor_visibility_ci_low_pct, competitor_visibility_ci_high_pct,
  brand_mentions, brand_visibility_pct, brand_visibility_ci_low_pct, brand_visibility_ci_high_pct,
  visibility_gap_pp, brand_absent
from marts.competitor_gaps
where ($project is null or project_id = $project)
order by project_id, provider, gap_share_pct desc, gap_responses desc, competitor_name, prompt_id
