/* @model
kind: incremental_by_time_range
time_column: date
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
audits:
  - not_null: [team_id, project_id, brand_key, brand_name, provider, date, brand_responses, tracked_brand_responses]
  - unique: [team_id, project_id, brand_key, provider, date]
  - accepted_values: {column: provider, values: [chatgpt, perplexity, gemini, all]}
  - expression: {sql: "tracked_brand_responses <= brand_responses and brand_responses <= responses", name: counts_nested}
  - expression: {sql: "sov_all_pct is null or sov_all_pct between 0 and 100", name: sov_all_in_range}
  - expression: {sql: "is_tracked or sov_tracked_pct is null", name: untracked_has_no_tracked_share}
  - expression: {sql: "sov_all_ci_low_pct is null or sov_all_pct between sov_all_ci_low_pct - 0.01 and sov_all_ci_high_pct + 0.01", name: sov_all_inside_interval}
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
  cast(totals.mentions_sq_total as bigint) as mentions_sq_total
from totals
join responses
  on responses.team_id = totals.team_id
  and responses.project_id = totals.project_id
  and responses.provider = totals.provider
  and responses.date = totals.date
