/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 60000 # more days a batch while they hold under 60,000 input rows: a small history in one (docs/models.md)
description: >
  Share of voice per brand, provider (and 'all') and day, each brand counted at most once per answer, over two
  denominators:
  tracked: sov_tracked_pct = 100 tracked_brand_responses / tracked_mentions_total, where tracked_mentions_total is
  the sum over the project's tracked brands (own brand + active competitors) of the answers naming each as a tracked
  mention (the API's brands_mentioned). Over tracked brands it sums to 100 for a (project, provider, date).
  all: sov_all_pct = 100 brand_responses / all_mentions_total, where all_mentions_total is the sum over every brand
  detected in the answers (tracked or not: market brands, pending competitors) of the answers naming each. Over all
  brands of the day it sums to 100.
  Intervals (95%): answers naming several brands make the mentions of one answer move together, so each share's
  interval treats the answer, not the mention, as the unit (macros/stats.sql share_low/share_high, a ratio of sums
  with answers as clusters, never narrower than Wilson's over the mentions). To pool days, sum brand_responses,
  brand_co_mentions and, once per day, all_mentions_total, mentions_sq_total and responses (tracked_* alike), then
  call the same macros.
  Rows: every tracked brand on every day of its span (as in marts.brand_visibility_daily, zeros included) and every
  untracked brand on the days it was detected. A tracked brand detected before it was tracked (in all_mentions only)
  counts in brand_responses but not in tracked_brand_responses.
  Two flags say when a share is not what it looks like. `is_complete`: the project's day has all its answers
  (intermediate.int_day_completeness); the newest synced day is usually partial, and its shares rest on part of the
  day. `tracked_set_changed`: on that day a competitor started or stopped being tracked (marts.measurement_events
  competitor_tracked / competitor_dropped), which moves every tracked brand's share of the project (the denominator
  gains or loses the competitor's mentions): set on every brand's rows of the project that day, the own brand's
  included. `tracked_set_from` is the first day of the tracked set in force on the row's day: a range of days whose
  rows share it compares like with like.
grain: one row per team, project, brand, provider (chatgpt, perplexity, gemini, all) and date
columns:
  team_id: the config's team
  project_id: the project
  brand_key: brand_id for tracked brands, 'name:' + lower-cased name for untracked ones
  brand_id: staging.tracked_brands.brand_id, null for untracked brands
  brand_name: current name (tracked) or the detected name (untracked)
  is_tracked: tracked on that day (inside the brand's tracked span in marts.brand_visibility_daily); before a competitor was tracked its answers count as untracked
  is_own_brand: the row is the project's own brand
  provider: chatgpt | perplexity | gemini | all
  date: UTC day of the answers
  responses: answers that day (context; not a share-of-voice denominator)
  tracked_brand_responses: answers naming the brand as a tracked mention (0 for untracked brands)
  brand_responses: answers naming the brand at all (any list)
  tracked_mentions_total: denominator 1, sum of tracked_brand_responses over the project's tracked brands that day
  all_mentions_total: denominator 2, sum of brand_responses over every brand detected that day
  sov_tracked_pct: 100 tracked_brand_responses / tracked_mentions_total (null for untracked brands or a zero denominator)
  sov_all_pct: 100 brand_responses / all_mentions_total (null for a zero denominator)
  sov_tracked_ci_low_pct: 95% interval of sov_tracked_pct, low end (answers as clusters; null where the share is null or with fewer than 2 answers)
  sov_tracked_ci_high_pct: its high end
  sov_all_ci_low_pct: 95% interval of sov_all_pct, low end (answers as clusters; null with fewer than 2 answers)
  sov_all_ci_high_pct: its high end
  tracked_co_mentions: over the answers naming the brand as a tracked mention, the sum of the tracked brands each names (the interval's cluster term)
  brand_co_mentions: over the answers naming the brand, the sum of the brands each names (itself included)
  tracked_mentions_sq_total: over all the day's answers, the sum of (tracked brands named)² (repeats on every row of the day, like the totals)
  mentions_sq_total: over all the day's answers, the sum of (brands named)²
  is_complete: the project's day has all its answers (false on a partial newest day)
  tracked_set_changed: a competitor started or stopped being tracked in the project on this day (on every brand's rows)
  tracked_set_from: first day of the project's tracked set in force on this day (the last such change on or before it; the project's first day when none)
audits:
  - not_null: [team_id, project_id, brand_key, brand_name, provider, date, brand_responses, tracked_brand_responses]
  - unique: [team_id, project_id, brand_key, provider, date]
  - accepted_values: {column: provider, values: [chatgpt, perplexity, gemini, all]}
  - expression: {sql: "tracked_brand_responses <= brand_responses and brand_responses <= responses", name: counts_nested}
  - expression: {sql: "sov_all_pct is null or sov_all_pct between 0 and 100", name: sov_all_in_range}
  - expression: {sql: "is_tracked or sov_tracked_pct is null", name: untracked_has_no_tracked_share}
  - expression: {sql: "sov_all_ci_low_pct is null or sov_all_pct between sov_all_ci_low_pct - 0.01 and sov_all_ci_high_pct + 0.01", name: sov_all_inside_interval}
  - expression: {sql: "tracked_set_from <= date and (not tracked_set_changed or tracked_set_from = date)", name: tracked_set_dated}
*/
with answers as (
  select team_id, project_id, chat_id, date, provider
  from intermediate.int_chats_by_provider
  where date between @start_date and @end_date
),
brand_answers as (
  -- One row per answer and brand (tracked brands by id, others by lower-cased name), each brand once per answer.
  select
    team_id,
    chat_id,
    coalesce(brand_id, 'name:' || lower(brand_name)) as brand_key,
    brand_id,
    min(brand_name) as detected_name,
    bool_or(is_tracked_brand and in_brands_mentioned) as tracked_mention
  from staging.chat_mentions
  where chat_date between @start_date and @end_date
  group by team_id, chat_id, coalesce(brand_id, 'name:' || lower(brand_name)), brand_id
),
answer_loads as (
  -- Brands each answer names, all and as tracked mentions: the cluster sizes of the share intervals.
  select team_id, chat_id, count(*) as named, count(*) filter (where tracked_mention) as tracked_named
  from brand_answers
  group by team_id, chat_id
),
brand_counts as (
  select
    answers.team_id,
    answers.project_id,
    brand_answers.brand_key,
    brand_answers.brand_id,
    min(brand_answers.detected_name) as detected_name,
    answers.provider,
    answers.date,
    count(*) as brand_responses,
    count(*) filter (where brand_answers.tracked_mention) as tracked_brand_responses,
    sum(answer_loads.named) as brand_co_mentions,
    coalesce(sum(answer_loads.tracked_named) filter (where brand_answers.tracked_mention), 0) as tracked_co_mentions
  from answers
  join brand_answers on brand_answers.team_id = answers.team_id and brand_answers.chat_id = answers.chat_id
  join answer_loads on answer_loads.team_id = answers.team_id and answer_loads.chat_id = answers.chat_id
  group by all
),
tracked_grid as (
  select team_id, project_id, brand_id as brand_key, brand_id, brand_name, is_own_brand, provider, date, responses
  from marts.brand_visibility_daily
  where date between @start_date and @end_date
),
responses as (
  select team_id, project_id, provider, date, count(*) as responses
  from answers
  group by all
),
set_changes as (
  -- Days a competitor started or stopped being tracked, per project.
  select distinct team_id, project_id, date
  from marts.measurement_events
  where kind in ('competitor_tracked', 'competitor_dropped')
),
days as (
  -- Per project day of the build: complete or not, a tracked-set change that day, and the newest change up to it
  -- (read over every day, not only the built ones).
  select
    c.team_id, c.project_id, c.date, c.is_complete,
    exists (
      select 1 from set_changes as s where s.team_id = c.team_id and s.project_id = c.project_id and s.date = c.date
    ) as tracked_set_changed,
    coalesce(
      (select max(s.date) from set_changes as s
       where s.team_id = c.team_id and s.project_id = c.project_id and s.date <= c.date),
      (select min(f.date) from intermediate.int_day_completeness as f
       where f.team_id = c.team_id and f.project_id = c.project_id)
    ) as tracked_set_from
  from intermediate.int_day_completeness as c
  where c.date between @start_date and @end_date
),
rows_ as (
  select
    coalesce(tracked_grid.team_id, brand_counts.team_id) as team_id,
    coalesce(tracked_grid.project_id, brand_counts.project_id) as project_id,
    coalesce(tracked_grid.brand_key, brand_counts.brand_key) as brand_key,
    coalesce(tracked_grid.brand_id, brand_counts.brand_id) as brand_id,
    coalesce(tracked_grid.brand_name, brand_counts.detected_name) as brand_name,
    -- Tracked as of the answer's day: inside the brand's tracked span (marts.brand_visibility_daily), not merely
    -- carrying a name a competitor was listed under later.
    tracked_grid.brand_id is not null as is_tracked,
    coalesce(tracked_grid.is_own_brand, false) as is_own_brand,
    coalesce(tracked_grid.provider, brand_counts.provider) as provider,
    coalesce(tracked_grid.date, brand_counts.date) as date,
    coalesce(brand_counts.tracked_brand_responses, 0) as tracked_brand_responses,
    coalesce(brand_counts.brand_responses, 0) as brand_responses,
    coalesce(brand_counts.tracked_co_mentions, 0) as tracked_co_mentions,
    coalesce(brand_counts.brand_co_mentions, 0) as brand_co_mentions
  from tracked_grid
  full join brand_counts
    on brand_counts.team_id = tracked_grid.team_id
    and brand_counts.project_id = tracked_grid.project_id
    and brand_counts.brand_key = tracked_grid.brand_key
    and brand_counts.provider = tracked_grid.provider
    and brand_counts.date = tracked_grid.date
),
totals as (
  select
    *,
    cast(sum(tracked_brand_responses) over day as bigint) as tracked_mentions_total,
    cast(sum(brand_responses) over day as bigint) as all_mentions_total,
    -- Σ over answers of (brands named)² = Σ over brands of their co-mentions (each answer's count, once per brand
    -- it names): no second pass over the answers.
    cast(sum(tracked_co_mentions) over day as bigint) as tracked_mentions_sq_total,
    cast(sum(brand_co_mentions) over day as bigint) as mentions_sq_total
  from rows_
  window day as (partition by team_id, project_id, provider, date)
)
select
  totals.team_id,
  totals.project_id,
  totals.brand_key,
  totals.brand_id,
  totals.brand_name,
  totals.is_tracked,
  totals.is_own_brand,
  totals.provider,
  totals.date,
  responses.responses,
  totals.tracked_brand_responses,
  totals.brand_responses,
  totals.tracked_mentions_total,
  totals.all_mentions_total,
  case when totals.is_tracked
    then round(100 * totals.tracked_brand_responses / nullif(totals.tracked_mentions_total, 0), 2) end
    as sov_tracked_pct,
  round(100 * totals.brand_responses / nullif(totals.all_mentions_total, 0), 2) as sov_all_pct,
  case when totals.is_tracked then round(100 * share_low(totals.tracked_brand_responses, totals.tracked_mentions_total,
    totals.tracked_co_mentions, totals.tracked_mentions_sq_total, responses.responses), 2) end as sov_tracked_ci_low_pct,
  case when totals.is_tracked then round(100 * share_high(totals.tracked_brand_responses, totals.tracked_mentions_total,
    totals.tracked_co_mentions, totals.tracked_mentions_sq_total, responses.responses), 2) end as sov_tracked_ci_high_pct,
  round(100 * share_low(totals.brand_responses, totals.all_mentions_total, totals.brand_co_mentions,
    totals.mentions_sq_total, responses.responses), 2) as sov_all_ci_low_pct,
  round(100 * share_high(totals.brand_responses, totals.all_mentions_total, totals.brand_co_mentions,
    totals.mentions_sq_total, responses.responses), 2) as sov_all_ci_high_pct,
  cast(totals.tracked_co_mentions as bigint) as tracked_co_mentions,
  cast(totals.brand_co_mentions as bigint) as brand_co_mentions,
  cast(totals.tracked_mentions_sq_total as bigint) as tracked_mentions_sq_total,
  cast(totals.mentions_sq_total as bigint) as mentions_sq_total,
  coalesce(days.is_complete, false) as is_complete,
  coalesce(days.tracked_set_changed, false) as tracked_set_changed,
  coalesce(days.tracked_set_from, totals.date) as tracked_set_from
from totals
join responses
  on responses.team_id = totals.team_id
  and responses.project_id = totals.project_id
  and responses.provider = totals.provider
  and responses.date = totals.date
left join days
  on days.team_id = totals.team_id and days.project_id = totals.project_id and days.date = totals.date
