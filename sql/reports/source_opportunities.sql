/* @report
title: Source opportunities
description: |
  Domains AI answers cite where the brand could earn a place, per project, from marts.source_opportunities (the
  project's latest analysis window; the formula is in docs/opportunities.md), in the order of score_rank: the
  opportunities (is_opportunity, a gap larger than the project's beyond sampling) first, then the other domains, each
  by opportunity score (0–100, the project's best domain 100). A domain a completed action already targeted names it
  (addressed_by_action). The own website and the tracked competitors' websites are left out. Every share comes with
  its numerator and denominator; reach_pct is the Wilson 95% lower bound of citing_share_pct.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  window_from: first day of the analysis window
  window_to: last day of the analysis window
  score_rank: "1 = the first domain to work on: the opportunities by score, then the other domains by score"
  domain: cited domain
  category_name: corporate, editorial, institutional, reference, ugc or other
  opportunity_score: 0–100, 100 = the project's best domain (docs/opportunities.md)
  responses: answers of the project in the window (n)
  citing_responses: answers citing the domain (numerator of citing_share_pct)
  citing_share_pct: 100 × citing_responses / responses
  reach_pct: Wilson 95% lower bound of citing_share_pct, percent
  citing_share_ci_high_pct: Wilson 95% upper bound of citing_share_pct, percent
  competitor_only_responses: citing answers naming a tracked competitor and not the brand (numerator of gap_share_pct)
  gap_share_pct: 100 × competitor_only_responses / citing_responses
  gap_share_ci_low_pct: Wilson 95% lower bound of gap_share_pct (n = citing_responses)
  gap_share_ci_high_pct: Wilson 95% upper bound of gap_share_pct
  unbranded_citations: citations in answers not naming the brand (the API's count)
  is_opportunity: worth working through, by a threshold on the gap; cited 3 or more times without the brand (the API's rule) and gap_share_ci_low_pct above project_gap_share_pct
  project_gap_share_pct: the project's gap share over its cited third-party domains, percent (the bar is_opportunity compares with)
  addressed_by_action: the title of a completed action that targeted the domain, null when none
  api_listed: the API's own opportunity list has the domain (null when no API window was synced)
*/
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = source_opportunities.project_id) as project_name, project_id,
  window_from, window_to, score_rank, domain, category_name, opportunity_score,
  responses, citing_responses, citing_share_pct, reach_pct, citing_share_ci_high_pct,
  competitor_only_responses, gap_share_pct, gap_share_ci_low_pct, gap_share_ci_high_pct,
  unbranded_citations::bigint as unbranded_citations, is_opportunity, project_gap_share_pct,
  addressed_by_action, api_listed
from marts.source_opportunities
where not is_own_domain and not is_competitor_domain
  and ($project is null or project_id = $project)
order by project_id, score_rank, domain
