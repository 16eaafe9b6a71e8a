/* @report
title: Competitor leaderboard and share of voice
description: |
  Per project and provider, each brand's share of the brand mentions in AI answers over the range, from
  marts.share_of_voice_daily, ranked. Two shares: among tracked brands only (own brand and tracked competitors),
  and among every brand the answers name (market brands too). Each brand counts at most once per answer; the
  denominators are the pooled mentions of all brands over the same days, so the shares of a project and provider
  add up to 100. Each share has its 95% interval with the answer as the unit (an answer names several brands, so its
  mentions are not independent: macros/stats.sql share_low/share_high, never narrower than Wilson's over the
  mentions); the visibility its Wilson interval over the answers. Intervals are null over days built before the
  mart had them (vwh models build --full-refresh --select marts.share_of_voice_daily fills them in).
  By default the range is the 7 days ending on each project's last complete day (a day's share rests on a few dozen
  answers, ±12 points; a partial newest day is left out): pass --from/--to for another. `tracked_set_changed` says
  when a competitor started or stopped being tracked inside the range, so the tracked shares mix two sets.
parameters:
  project: {type: VARCHAR, default: null, description: "project id; all projects when omitted"}
  from: {type: DATE, default: null, description: "first day counted; 6 days before the last day counted when omitted (7 days)"}
  to: {type: DATE, default: null, description: "last day counted; each project's last complete day when omitted"}
columns:
  project_name: project name (the API's, as staging.projects has it now)
  project_id: project id
  provider: AI provider id, or all
  rank: 1 = most answers naming the brand (brand_responses), ties by name
  brand_name: brand name
  brand_key: the brand (tracked brand id, or name:<lower-case name> for untracked brands)
  is_own_brand: the project's own brand
  is_tracked: a tracked brand (own brand or active competitor)
  responses: answers of the project over the range (n)
  brand_responses: answers naming the brand at all (numerator of sov_all_pct)
  all_mentions_total: answers naming a brand, summed over every brand (denominator of sov_all_pct)
  sov_all_pct: 100 × brand_responses / all_mentions_total
  sov_all_ci_low_pct: 95% interval of sov_all_pct, low end (answers as the unit)
  sov_all_ci_high_pct: its high end
  tracked_brand_responses: answers naming the brand as a tracked mention (numerator of sov_tracked_pct)
  tracked_mentions_total: the same summed over tracked brands (denominator of sov_tracked_pct)
  sov_tracked_pct: 100 × tracked_brand_responses / tracked_mentions_total (null for untracked brands)
  sov_tracked_ci_low_pct: 95% interval of sov_tracked_pct, low end (answers as the unit; null for untracked brands)
  sov_tracked_ci_high_pct: its high end
  visibility_pct: 100 × brand_responses / responses (share of answers naming the brand)
  visibility_ci_low_pct: Wilson 95% interval of visibility_pct, low end (n = responses)
  visibility_ci_high_pct: its high end
  date_from: first day counted
  date_to: last day counted
  days_partial: days of the range whose answers are not all in (0 by default)
  tracked_set_changed: a competitor started or stopped being tracked inside the range (after its first day), so the tracked shares mix two tracked sets
*/
with bounds as (
  -- Each project's range: --to or its last complete day, and --from or the 6 days before (7 days).
  select project_id, coalesce(cast($from as date), last_day - 6) as date_from, last_day as date_to
  from (
    select project_id, coalesce(cast($to as date), max(date) filter (where is_complete), max(date)) as last_day
    from marts.share_of_voice_daily
    where ($project is null or project_id = $project)
    group by project_id
  )
),
in_range as (
  select d.*, b.date_from, b.date_to from marts.share_of_voice_daily as d
  join bounds as b using (project_id)
  where d.date between b.date_from and b.date_to
),
range_flags as (
  select project_id, any_value(date_from) as date_from, any_value(date_to) as date_to,
         count(distinct date) filter (where not is_complete) as days_partial,
         count(distinct tracked_set_from) > 1 as tracked_set_changed
  from in_range
  group by project_id
),
answers as (
  -- responses and the squared-mention sums repeat on every brand row of a day: one value per project, provider and
  -- day. The sums are null over a range holding days built before the mart had them: then no interval.
  select project_id, provider, sum(responses) as responses,
         case when count(mentions_sq_total) = count(*) then sum(mentions_sq_total) end as mentions_sq_total,
         case when count(tracked_mentions_sq_total) = count(*) then sum(tracked_mentions_sq_total) end
           as tracked_mentions_sq_total
  from (select distinct project_id, provider, date, responses, mentions_sq_total, tracked_mentions_sq_total
        from in_range)
  group by project_id, provider
),
per_brand as (
  select project_id, provider, brand_key,
         any_value(brand_name order by date desc) as brand_name,
         bool_or(is_own_brand) as is_own_brand,
         bool_or(is_tracked) as is_tracked,
         sum(brand_responses) as brand_responses,
         sum(tracked_brand_responses) as tracked_brand_responses,
         sum(brand_co_mentions) as brand_co_mentions,
         sum(tracked_co_mentions) as tracked_co_mentions
  from in_range
  group by project_id, provider, brand_key
),
totals as (
  select *,
         sum(brand_responses) over (partition by project_id, provider) as all_mentions_total,
         sum(tracked_brand_responses) filter (where is_tracked) over (partition by project_id, provider) as tracked_mentions_total
  from per_brand
)
select
  (select any_value(p.project_name) from staging.projects p where p.project_id = t.project_id) as project_name,
  t.project_id,
  t.provider,
  row_number() over (partition by t.project_id, t.provider order by t.brand_responses desc, t.brand_name) as rank,
  t.brand_name,
  t.brand_key,
  t.is_own_brand,
  t.is_tracked,
  a.responses::bigint as responses,
  t.brand_responses::bigint as brand_responses,
  t.all_mentions_total::bigint as all_mentions_total,
  100 * t.brand_responses / nullif(t.all_mentions_total, 0) as sov_all_pct,
  100 * share_low(t.brand_responses, t.all_mentions_total, t.brand_co_mentions, a.mentions_sq_total, a.responses)
    as sov_all_ci_low_pct,
  100 * share_high(t.brand_responses, t.all_mentions_total, t.brand_co_mentions, a.mentions_sq_total, a.responses)
    as sov_all_ci_high_pct,
  t.tracked_brand_responses::bigint as tracked_brand_responses,
  case when t.is_tracked then t.tracked_mentions_total::bigint end as tracked_mentions_total,
  case when t.is_tracked then 100 * t.tracked_brand_responses / nullif(t.tracked_mentions_total, 0) end as sov_tracked_pct,
  case when t.is_tracked then 100 * share_low(t.tracked_brand_responses, t.tracked_mentions_total,
    t.tracked_co_mentions, a.tracked_mentions_sq_total, a.responses) end as sov_tracked_ci_low_pct,
  case when t.is_tracked then 100 * share_high(t.tracked_brand_responses, t.tracked_mentions_total,
    t.tracked_co_mentions, a.tracked_mentions_sq_total, a.responses) end as sov_tracked_ci_high_pct,
  100 * t.brand_responses / nullif(a.responses, 0) as visibility_pct,
  100 * wilson_low(t.brand_responses, a.responses) as visibility_ci_low_pct,
  100 * wilson_high(t.brand_responses, a.responses) as visibility_ci_high_pct,
  f.date_from,
  f.date_to,
  f.days_partial,
  f.tracked_set_changed
from totals t join answers a using (project_id, provider) join range_flags f using (project_id)
where t.brand_responses > 0
order by t.project_id, t.provider, rank
