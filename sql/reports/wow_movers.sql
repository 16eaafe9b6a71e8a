/* @report
title: Week-over-week movers
description: |
  Each brand's visibility over the last 7 days against the 7 days before, per project and provider, on the last
  day of the range (the newest day of the trend when --to is omitted), from marts.brand_visibility_trend. Both
  windows come with their answers (n), the change with its 95% interval (Newcombe), and `wow_significant` is the
  trend mart's discovery (Benjamini–Hochberg over the team's week-over-week tests of the day): only those are flagged
  as movers; an interval that excludes zero on its own is no mover (of many changes tested, some are noise). The
  change compares the prompts answered in both weeks; `wow_mde_pp` is the smallest change the test could have
  seen (80% power at the day's threshold). Significant changes first, largest first.
  Columns the trend mart adds (flags, further n's) follow in its order.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
  to: {type: DATE, default: null, description: "the day whose week is compared; the newest day of each project when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  date: last day of the current 7-day window
  brand_name: brand name
  brand_id: tracked brand
  is_own_brand: the project's own brand
  provider: AI provider id, or all
  responses_7d: answers in the last 7 days (n)
  mentions_7d: of which naming the brand
  visibility_7d_pct: 100 × mentions_7d / responses_7d
  responses_prev_7d: answers in the 7 days before (n)
  mentions_prev_7d: of which naming the brand
  visibility_prev_7d_pct: 100 × mentions_prev_7d / responses_prev_7d
  wow_delta_pp: change in percentage points, of the prompts answered in both weeks
  wow_ci_low_pp: Newcombe 95% lower bound of the change
  wow_ci_high_pp: upper bound
  wow_significant: a discovery at a false discovery rate of 1% (the mover flag)
  wow_mde_pp: the smallest change (points) this test discovers 80% of the time at the threshold the day's discoveries used; a smaller true change mostly goes unflagged
  wow_flag: the trend mart's change flag, where it has one
  wow_alert: the trend mart's alert (false discovery rate controlled, once per episode), where it has one
  complete_window: both windows hold complete days only, where the mart says so
  measurement_change: a measurement change falls in the windows, where the mart says so
*/
with last_day as (
  select project_id, max(date) as date
  from marts.brand_visibility_trend
  where ($project is null or project_id = $project) and ($to is null or date <= $to)
  group by project_id
)
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = t.project_id) as project_name,
  t.project_id,
  t.date,
  t.brand_name,
  t.brand_id,
  columns(c -> c in (
    'is_own_brand', 'provider', 'responses_7d', 'mentions_7d',
    'visibility_7d_pct', 'responses_prev_7d', 'mentions_prev_7d', 'visibility_prev_7d_pct', 'wow_delta_pp',
    'wow_ci_low_pp', 'wow_ci_high_pp', 'wow_significant', 'wow_mde_pp', 'wow_flag', 'wow_alert', 'complete_window',
    'measurement_change'))
from marts.brand_visibility_trend t semi join last_day using (project_id, date)
where t.wow_delta_pp is not null
order by project_id, wow_significant desc, abs(wow_delta_pp) desc, provider, brand_name
