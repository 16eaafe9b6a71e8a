/* @report
title: What changed
description: |
  Each brand's visibility since yesterday, this week against last and this month against last, per project and
  provider (`all` pools the providers), on the last day of the range (the newest complete day of each project when
  --to is omitted). Every change comes with both sides' answers (n), its 95% interval, whether it is significant and
  the minimum detectable change (MDE: the size of change the test finds 80% of the time), and the brand's tracked
  share of voice over the same windows.

  - week and month: marts.brand_visibility_trend's week-over-week (7 days against the 7 before) and month-over-month
    (28 against 28) change of the prompts answered in both windows, its Newcombe interval, `*_significant` (the
    alerts' decision: Benjamini–Hochberg over the team's tests of the day, q = 0.01 a week, 0.05 a month) and
    `*_mde_pp`; not tested (significant false, no MDE) where a measurement change falls in the windows.
  - day: the day against the day before, from marts.brand_visibility_daily (both days complete): Newcombe's
    interval, a one-sided test that the change exceeds 1 point, and Benjamini–Hochberg at q = 0.01 over the
    report's day tests of the team (as the weekly alerts); the MDE at the threshold that used. A day rests on a
    handful of answers a prompt: only large moves are detectable.
  - share of voice (tracked brands): 100 × the brand's answers / the tracked brands' mentions over each window,
    from marts.share_of_voice_daily; its change in points, without a test.

  Rates are percentages, changes in points (CSV and Markdown round them to 1 decimal, JSON keeps them whole). Rows per project and period in rank order:
  significant changes first, largest first (`rank`).
parameters:
  project: {type: VARCHAR, default: null, description: "project id or name; all projects when omitted"}
  to: {type: DATE, default: null, description: "the day the windows end on; the newest complete day of each project when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  period: "day (since yesterday) | week (7 days against the 7 before) | month (28 days against the 28 before)"
  rank: 1 = the first row of the project and period (significant first, then the largest change)
  brand_name: brand name
  is_own_brand: the project's own brand
  provider: AI provider id, or all
  date_from: first day of the current window
  date_to: last day of the current window
  prev_from: first day of the previous window
  prev_to: last day of the previous window
  responses: answers of the change's current side (n; week and month, the prompts answered in both windows)
  responses_prev: answers of its previous side (n)
  visibility_pct: 100 × answers naming the brand / answers, current window (all prompts)
  visibility_prev_pct: the same, previous window
  change_pp: the change, percentage points (week and month, of the prompts answered in both windows)
  change_ci_low_pp: Newcombe 95% lower bound of the change
  change_ci_high_pp: upper bound
  significant: a discovery at the period's false discovery rate (the alert's decision)
  p_value: one-sided p-value that the change exceeds the margin in its direction (1 point; 0.5 a month)
  mde_pp: minimum detectable change at 80% power at the threshold the discovery used, percentage points
  sov_pct: tracked share of voice over the current window, percent
  sov_prev_pct: the same over the previous window
  sov_change_pp: sov_pct − sov_prev_pct, points
  brand_id: tracked brand id
*/
with last_day as (
  -- The day the windows end on, per project: --to, or the trend's newest day (complete days only).
  select team_id, project_id, max(date) as date_to
  from marts.brand_visibility_trend
  where ($project is null or project_id = $project) and ($to is null or date <= cast($to as date))
  group by team_id, project_id
),
periods as (
  select l.team_id, l.project_id, p.period, p.days, l.date_to
  from last_day as l
  cross join (values ('day', 1), ('week', 7), ('month', 28)) as p(period, days)
),
trend as (
  -- week and month: the trend mart's tests on the last day
  select
    t.team_id, t.project_id, t.brand_id, t.brand_name, t.is_own_brand, t.provider, p.period, p.days, p.date_to,
    case p.period when 'week' then wow_panel_responses else mom_panel_responses end as responses,
    case p.period when 'week' then wow_panel_prev_responses else mom_panel_prev_responses end as responses_prev,
    case p.period when 'week' then visibility_7d_pct else visibility_28d_pct end as visibility_pct,
    case p.period when 'week' then visibility_prev_7d_pct else visibility_prev_28d_pct end as visibility_prev_pct,
    case p.period when 'week' then wow_delta_pp else mom_delta_pp end as change_pp,
    case p.period when 'week' then wow_ci_low_pp else mom_ci_low_pp end as change_ci_low_pp,
    case p.period when 'week' then wow_ci_high_pp else mom_ci_high_pp end as change_ci_high_pp,
    case p.period when 'week' then wow_significant else mom_significant end as significant,
    case p.period when 'week' then wow_p_value else mom_p_value end as p_value,
    case p.period when 'week' then wow_mde_pp else mom_mde_pp end as mde_pp
  from marts.brand_visibility_trend as t
  join periods as p
    on p.team_id = t.team_id and p.project_id = t.project_id and p.date_to = t.date and p.period <> 'day'
),
day_pairs as (
  -- day: the last day against the day before, both complete
  select
    d.team_id, d.project_id, d.brand_id, d.brand_name, d.is_own_brand, d.provider, p.date_to,
    d.responses as n1, d.mentions as x1, y.responses as n0, y.mentions as x0
  from marts.brand_visibility_daily as d
  join periods as p
    on p.team_id = d.team_id and p.project_id = d.project_id and p.date_to = d.date and p.period = 'day'
  join marts.brand_visibility_daily as y
    on y.team_id = d.team_id and y.project_id = d.project_id and y.brand_id = d.brand_id
    and y.provider = d.provider and y.date = d.date - 1 and y.is_complete
  where d.is_complete
),
day_tests as (
  select
    *,
    x1 / n1 - x0 / n0 as d,
    newcombe_low(x1, n1, x0, n0) as lo,
    newcombe_high(x1, n1, x0, n0) as hi,
    case when x1 / n1 <> x0 / n0 then
      normal_sf((abs(x1 / n1 - x0 / n0) - 0.01)
        / nullif((case when x1 / n1 > x0 / n0 then x1 / n1 - x0 / n0 - lo else hi - (x1 / n1 - x0 / n0) end) / 1.959964, 0))
    end as p
  from day_pairs
),
day_ranked as (
  select
    *,
    row_number() over (partition by team_id order by p, project_id, brand_id, provider) as k,
    count(p) over (partition by team_id) as m
  from day_tests
),
day_bh as (
  select
    *,
    p is not null and k <= coalesce(max(case when p <= 0.01 * k / m then k end) over (partition by team_id), 0)
      as discovered
  from day_ranked
),
day_rows as (
  select
    team_id, project_id, brand_id, brand_name, is_own_brand, provider, 'day' as period, 1 as days, date_to,
    n1 as responses, n0 as responses_prev, 100 * x1 / n1 as visibility_pct, 100 * x0 / n0 as visibility_prev_pct,
    100 * d as change_pp, 100 * lo as change_ci_low_pp, 100 * hi as change_ci_high_pp,
    discovered as significant, p as p_value,
    -- the threshold BH used over the team's day tests: q·k/m at its largest discovery, q/m without one
    100 * mde80(0.01, 0.01 * greatest(count(*) filter (where discovered) over (partition by team_id), 1)
      / nullif(m, 0), (hi - lo) / (2 * 1.959964)) as mde_pp
  from day_bh
),
changes as (
  select * from trend
  union all by name
  select * from day_rows
),
sov_days as (
  -- the tracked share's denominator once per project, provider and day (it repeats on every brand's row)
  select distinct team_id, project_id, provider, date, tracked_mentions_total
  from marts.share_of_voice_daily
  where is_tracked
),
sov_totals as (
  -- per period: the denominators of the current and the previous window
  select
    p.team_id, p.project_id, t.provider, p.period,
    sum(t.tracked_mentions_total) filter (where t.date > p.date_to - p.days) as total,
    sum(t.tracked_mentions_total) filter (where t.date <= p.date_to - p.days) as total_prev
  from periods as p
  join sov_days as t
    on t.team_id = p.team_id and t.project_id = p.project_id
    and t.date between p.date_to - 2 * p.days + 1 and p.date_to
  group by all
),
sov_brands as (
  -- per period and brand: its numerators over the two windows
  select
    p.team_id, p.project_id, s.brand_id, s.provider, p.period,
    sum(s.tracked_brand_responses) filter (where s.date > p.date_to - p.days) as named,
    sum(s.tracked_brand_responses) filter (where s.date <= p.date_to - p.days) as named_prev
  from periods as p
  join marts.share_of_voice_daily as s
    on s.team_id = p.team_id and s.project_id = p.project_id and s.is_tracked
    and s.date between p.date_to - 2 * p.days + 1 and p.date_to
  group by all
),
sov as (
  select
    b.team_id, b.project_id, b.brand_id, b.provider, b.period,
    100 * coalesce(b.named, 0) / nullif(t.total, 0) as sov_pct,
    100 * coalesce(b.named_prev, 0) / nullif(t.total_prev, 0) as sov_prev_pct
  from sov_brands as b
  join sov_totals as t using (team_id, project_id, provider, period)
)
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = c.project_id) as project_name,
  c.project_id,
  c.period,
  row_number() over (
    partition by c.team_id, c.project_id, c.period
    order by coalesce(c.significant, false) desc, abs(c.change_pp) desc nulls last, c.provider <> 'all', c.provider,
      c.brand_name
  ) as rank,
  c.brand_name,
  c.is_own_brand,
  c.provider,
  c.date_to - c.days + 1 as date_from,
  c.date_to,
  c.date_to - 2 * c.days + 1 as prev_from,
  c.date_to - c.days as prev_to,
  c.responses,
  c.responses_prev,
  c.visibility_pct,
  c.visibility_prev_pct,
  c.change_pp,
  c.change_ci_low_pp,
  c.change_ci_high_pp,
  coalesce(c.significant, false) as significant,
  c.p_value,
  c.mde_pp,
  s.sov_pct,
  s.sov_prev_pct,
  s.sov_pct - s.sov_prev_pct as sov_change_pp,
  c.brand_id
from changes as c
left join sov as s
  on s.team_id = c.team_id and s.project_id = c.project_id and s.brand_id = c.brand_id and s.provider = c.provider
  and s.period = c.period
where c.change_pp is not null
order by project_name, c.project_id, case c.period when 'day' then 1 when 'week' then 2 else 3 end, rank
