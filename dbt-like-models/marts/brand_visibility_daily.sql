/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 60000 # more days a batch while they hold under 60,000 input rows: a small history in one (docs/models.md)
description: >
  Daily visibility of each tracked brand (the own brand and every competitor) per provider and for all providers
  pooled ('all'). Counts are stored next to every rate so any grain re-aggregates from sums: visibility over a week
  is sum(mentions) / sum(responses), never an average of daily rates. Rates are percentages rounded to 2 decimals
  (like the API); the counts are exact.

  Formulas (n = responses, x = mentions, z = 1.96):
  visibility_pct = 100 x / n.
  Wilson 95% interval = 100 (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = x / n.
  avg_position = position_sum / position_n (mentioning answers only; 1 = named first).
  first_mention_rate_pct = 100 first_mentions / n (answers where the brand is the first tracked brand named).
  position_weighted_visibility_pct = 100 position_weight_sum / n, position_weight_sum = sum of 1/position over
  mentioning answers (a first place counts 1, a second 1/2...; 0 when not named), so it is at most visibility_pct.
  sentiment_avg = sentiment_sum / sentiment_n, null when sentiment_n = 0.

  A competitor's rows start on the first day it was reported as a tracked mention (the API exposes no date a
  competitor was added; before that day it could not be counted) and, for a competitor no longer on the active
  list, end on its last such day. The own brand's rows start on the project's first day with answers.
grain: one row per team, project, brand, provider (chatgpt, perplexity, gemini, all) and date with answers
columns:
  team_id: the config's team
  project_id: the project
  brand_id: staging.tracked_brands.brand_id (competitor id; the own brand may carry the all-zero id)
  brand_name: the brand's current name
  is_own_brand: the row is the project's own brand
  provider: chatgpt | perplexity | gemini | all (every provider pooled)
  date: UTC day of the answers
  responses: answers collected that day (the denominator of every rate)
  mentions: answers naming the brand (each answer once)
  visibility_pct: 100 mentions / responses
  visibility_ci_low_pct: Wilson 95% lower bound, percent
  visibility_ci_high_pct: Wilson 95% upper bound, percent
  position_sum: sum of the brand's positions over mentioning answers
  position_n: mentioning answers with a position (= mentions)
  avg_position: position_sum / position_n, null when not named
  first_mentions: answers where the brand is named first among tracked brands
  first_mention_rate_pct: 100 first_mentions / responses
  position_weight_sum: sum of 1/position over mentioning answers
  position_weighted_visibility_pct: 100 position_weight_sum / responses
  sentiment_sum: sum of the brand's sentiment (0-100) over mentioning answers with a sentiment
  sentiment_n: answers contributing to sentiment_sum
  is_complete: "the day's answers are all in (intermediate.int_day_completeness); a partial day's rates read low and stay out of trends and alerts"
  measurement_change: a measurement change (marts.measurement_events) of this brand or the whole project starts that day
  sentiment_avg: sentiment_sum / sentiment_n, null when sentiment_n = 0
audits:
  - not_null: [team_id, project_id, brand_id, brand_name, provider, date, responses, mentions]
  - unique: [team_id, project_id, brand_id, provider, date]
  - accepted_values: {column: provider, values: [chatgpt, perplexity, gemini, all]}
  - expression: {sql: "mentions between 0 and responses and responses > 0", name: mentions_within_responses}
  - expression: {sql: "visibility_ci_low_pct <= visibility_pct and visibility_pct <= visibility_ci_high_pct", name: ci_brackets_visibility}
  - expression: {sql: "position_weighted_visibility_pct <= visibility_pct and first_mention_rate_pct <= visibility_pct", name: weighted_rates_within_visibility}
  - expression: {sql: "(sentiment_n = 0) = (sentiment_avg is null) and (mentions = 0) = (avg_position is null)", name: averages_null_iff_no_n}
  - relationships: {column: brand_id, to: staging.tracked_brands, field: brand_id}
*/
with answers as (
  select team_id, project_id, chat_id, date, provider
  from intermediate.int_chats_by_provider
  where date between @start_date and @end_date
),
responses as (
  select team_id, project_id, provider, date, count(*) as responses
  from answers
  group by team_id, project_id, provider, date
),
mentions as (
  select
    answers.team_id,
    answers.project_id,
    tracked.brand_id,
    answers.provider,
    answers.date,
    count(*) as mentions,
    cast(sum(tracked.position) as bigint) as position_sum,
    count(tracked.position) as position_n,
    count(*) filter (where tracked.position = 1) as first_mentions,
    -- Summed as DECIMAL, exactly: a sum of doubles differs in its last digit with the order of its inputs.
    cast(sum(cast(1 / tracked.position as decimal(18, 15))) as double) as position_weight_sum,
    sum(tracked.sentiment) as sentiment_sum,
    count(tracked.sentiment) as sentiment_n
  from answers
  join intermediate.int_brand_mentions_per_chat as tracked
    on tracked.team_id = answers.team_id and tracked.chat_id = answers.chat_id
    and tracked.chat_date between @start_date and @end_date
  group by answers.team_id, answers.project_id, tracked.brand_id, answers.provider, answers.date
),
tracking_spans as (
  -- Computed over every day apart (intermediate.int_brand_tracking_spans): this model is cut by day.
  select team_id, project_id, brand_id, brand_name, is_own_brand, tracked_from, tracked_to
  from intermediate.int_brand_tracking_spans
),
grid as (
  select
    responses.team_id,
    responses.project_id,
    spans.brand_id,
    spans.brand_name,
    spans.is_own_brand,
    responses.provider,
    responses.date,
    responses.responses
  from responses
  join tracking_spans as spans
    on spans.team_id = responses.team_id
    and spans.project_id = responses.project_id
    and responses.date >= spans.tracked_from
    and (spans.tracked_to is null or responses.date <= spans.tracked_to)
),
counts as (
  select
    grid.*,
    coalesce(mentions.mentions, 0) as mentions,
    coalesce(mentions.position_sum, 0) as position_sum,
    coalesce(mentions.position_n, 0) as position_n,
    coalesce(mentions.first_mentions, 0) as first_mentions,
    coalesce(mentions.position_weight_sum, 0) as position_weight_sum,
    mentions.sentiment_sum,
    coalesce(mentions.sentiment_n, 0) as sentiment_n,
    coalesce(mentions.mentions, 0) / grid.responses as p
  from grid
  left join mentions
    on mentions.team_id = grid.team_id
    and mentions.project_id = grid.project_id
    and mentions.brand_id = grid.brand_id
    and mentions.provider = grid.provider
    and mentions.date = grid.date
),
published as (
  select
    team_id,
    project_id,
    brand_id,
    brand_name,
    is_own_brand,
    provider,
    date,
    responses,
    mentions,
    round(100 * p, 2) as visibility_pct,
    round(100 * wilson_low(mentions, responses), 2) as visibility_ci_low_pct,
    round(100 * wilson_high(mentions, responses), 2) as visibility_ci_high_pct,
    position_sum,
    position_n,
    round(position_sum / nullif(position_n, 0), 2) as avg_position,
    first_mentions,
    round(100 * first_mentions / responses, 2) as first_mention_rate_pct,
    position_weight_sum,
    round(100 * position_weight_sum / responses, 2) as position_weighted_visibility_pct,
    sentiment_sum,
    sentiment_n,
    round(sentiment_sum / nullif(sentiment_n, 0), 2) as sentiment_avg
  from counts
)
select
  r.*,
  coalesce(dc.is_complete, false) as is_complete,
  exists (
    select 1 from marts.measurement_events as e
    where e.team_id = r.team_id and e.project_id = r.project_id and e.date = r.date
      and (e.brand_id is null or e.brand_id = r.brand_id)
  ) as measurement_change
from published as r
left join intermediate.int_day_completeness as dc
  on dc.team_id = r.team_id and dc.project_id = r.project_id and dc.date = r.date
