/* @report
title: Source opportunities
description: |
  Domains AI answers cite where the brand could earn a place, per project, from marts.source_opportunities (the
  project's latest analysis window; the formula is in docs/opportunities.md): the opportunities (is_opportunity, a gap
  larger than the project's beyond sampling) first, then the other domains, each by opportunity score (0–100). A
  domain a completed action already targeted names it (addressed_by_action). The own website is left out. Every share comes with its numerator and denominator; reach is the Wilson 95% lower bound
  of citing_share.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
columns:
  project_id: project id
  project_name: project name (the API's, as staging.projects has it now)
  window_from: first day of the analysis window
  window_to: last day of the analysis window
  score_rank: 1 = best score of the project
  domain: cited domain
  category_name: corporate, editorial, institutional, reference, ugc or other
  opportunity_score: 0..100 (docs/opportunities.md)
  responses: answers of the project in the window (n)
  citing_responses: answers citing the domain (numerator of citing_share)
  citing_share: citing_responses / responses (0..1)
  reach: Wilson 95% lower bound of citing_share (0..1)
  citing_share_ci_high: Wilson 95% upper bound of citing_share (0..1)
  competitor_only_responses: citing answers naming a tracked competitor and not the brand (numerator of gap_share)
  gap_share: competitor_only_responses / citing_responses (0..1)
  gap_share_ci_low: Wilson 95% lower bound of gap_share (n = citing_responses)
  gap_share_ci_high: Wilson 95% upper bound of gap_share
  unbranded_citations: citations in answers not naming the brand (the API's count)
  is_opportunity: worth working through, by a threshold on the gap; cited 3 or more times without the brand (the API's rule) and gap_share_ci_low above project_gap_share
  project_gap_share: the project's gap share over its cited third-party domains (the bar is_opportunity compares with)
  addressed_by_action: the title of a completed action that targeted the domain, null when none
  api_listed: the API's own opportunity list has the domain (null when no API window was synced)
*/
select
  project_id, (select any_value(p.project_name) from staging.projects p where p.project_id = source_opportunities.project_id) as project_name,
  window_from, window_to, score_rank, domain, category_name,
  round(opportunity_score, 2) as opportunity_score,
  responses, citing_responses, round(citing_share, 4) as citing_share, round(reach, 4) as reach,
  round(citing_share_ci_high, 4) as citing_share_ci_high,
  competitor_only_responses, round(gap_share, 4) as gap_share,
  round(gap_share_ci_low, 4) as gap_share_ci_low, round(gap_share_ci_high, 4) as gap_share_ci_high,
  unbranded_citations::bigint as unbranded_citations, is_opportunity, round(project_gap_share, 4) as project_gap_share,
  addressed_by_action, api_listed
from marts.source_opportunities
where not is_own_domain
  and ($project is null or project_id = $project)
order by project_id, is_opportunity desc, score_rank, domain
