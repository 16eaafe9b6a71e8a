/* @report
title: Weekly visibility by brand and provider
description: |
  Share of AI answers naming each brand (own brand and tracked competitors), per ISO week (Monday to Sunday) and
  provider (`all` pools the providers), from marts.brand_visibility_daily. Counts are summed before dividing, so a
  week's rate is mentions / responses over the week, never a mean of daily rates. Weeks cut by --from/--to count
  only their days inside the range (see `days`).
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
  from: {type: DATE, default: null, description: "first day counted; the first day with answers when omitted"}
  to: {type: DATE, default: null, description: "last day counted; the last day with answers when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  week_start: Monday of the ISO week
  brand_name: brand name
  brand_id: tracked brand (the own brand's id when the API lists it, else the all-zero id)
  is_own_brand: the project's own brand
  provider: AI provider id, or all
  days: days of the week with answers inside the range
  responses: answers (n, the denominator)
  mentions: answers naming the brand (the numerator)
  visibility_pct: 100 × mentions / responses
  visibility_ci_low_pct: Wilson 95% lower bound, percent
  visibility_ci_high_pct: Wilson 95% upper bound, percent
  position_n: mentioning answers with a position
  avg_position: mean position over those (null when position_n = 0)
*/
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = brand_visibility_daily.project_id) as project_name,
  project_id,
  date_trunc('week', date)::date as week_start,
  any_value(brand_name order by date desc) as brand_name,
  brand_id,
  bool_or(is_own_brand) as is_own_brand,
  provider,
  count(*) as days,
  sum(responses)::bigint as responses,
  sum(mentions)::bigint as mentions,
  100 * sum(mentions) / sum(responses) as visibility_pct,
  100 * wilson_low(sum(mentions), sum(responses)) as visibility_ci_low_pct,
  100 * wilson_high(sum(mentions), sum(responses)) as visibility_ci_high_pct,
  sum(position_n)::bigint as position_n,
  sum(position_sum) / nullif(sum(position_n), 0) as avg_position
from marts.brand_visibility_daily
where ($project is null or project_id = $project)
  and ($from is null or date >= $from)
  and ($to is null or date <= $to)
group by project_id, date_trunc('week', date), brand_id, provider
having sum(responses) > 0
order by project_id, week_start, provider, is_own_brand desc, brand_name
