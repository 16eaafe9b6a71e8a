/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# No lookback of its own: a day is re-processed when staging.chats or staging.prompt_metrics_daily re-processed it
# (their lookbacks: the sync's late answers, and the charts' rotation). What it reads across days (each prompt's
# last day on either side) only decides `pending` for the newest days, which those re-process.
# A month a transaction: each row group then holds about a month's days, so a night's export of the lake reads the
# last month's rows, not the year's (docs/lake.md); the extents are over every day, whatever the batch, so the
# rows are those of one batch (the 1 x world: 485,115 rows either way).
batch_days: 31
batch_rows: 60000 # more days a batch while they hold under 60,000 input rows: a small history in one (docs/models.md)
description: >
  Our re-aggregation of each prompt's daily per-provider figures from the chats, next to the values the API served
  in the prompt analytics charts (staging.prompt_metrics_daily), with the differences. Ours: visibility = 100
  mentioned / chats, position = mean position of mentioning chats, sentiment = mean sentiment of mentioning chats,
  unrounded (to 6 decimals). The API rounds each to 2 decimals, so agreement means |diff| <= 0.005; the audits
  allow 0.0051 (float noise). A point served by the API for a day we hold no chats for (or the reverse) is a
  disagreement too (match_status), unless the API's value is not fetched yet or was fetched before our answers of
  that day (late answers arrived after it), or it is for a day after the last one our answers are modelled for (a
  partial newest day): `pending`, which the aggregate sync's rotation resolves. position and sentiment are served only for providers with a mention that day,
  so both sides are null when the brand was not named.
grain: one row per team, prompt, provider and date present on either side
columns:
  team_id: the config's team
  project_id: the project
  prompt_id: the prompt
  prompt_content: the prompt's current text
  provider: chatgpt | perplexity | gemini
  date: UTC day
  responses: chats we hold for the prompt, provider and day
  mentions: of which name the own brand
  visibility_ours_pct: 100 mentions / responses
  visibility_api_pct: the API's visibility_chart value
  visibility_diff_pp: visibility_ours_pct - visibility_api_pct
  position_n: mentioning chats with a position (the n of position_ours)
  position_ours: position_sum / position_n over mentioning chats
  position_api: the API's position_chart value
  position_diff: position_ours - position_api
  sentiment_n: mentioning chats with a sentiment (the n of sentiment_ours)
  sentiment_ours: sentiment_sum / sentiment_n over mentioning chats
  sentiment_api: the API's sentiment_chart value
  sentiment_diff: sentiment_ours - sentiment_api
  match_status: "both (the day is on both sides and agrees), pending (the API value is not fetched yet, or older than our answers of the day, or its day's answers are not modelled yet), api_only (served, no chats held), ours_only (chats, nothing served)"
  within_rounding: every diff is within 0.0051, or null on both sides, and match_status is both
audits:
  - not_null: [team_id, prompt_id, provider, date, match_status, within_rounding]
  - unique: [team_id, prompt_id, provider, date]
  - accepted_values: {column: match_status, values: [both, pending]}
  - expression: {sql: "within_rounding or match_status = 'pending'", name: agrees_with_api_within_rounding}
*/
with ours as (
  select
    team_id, project_id, prompt_id, provider, chat_date as date,
    count(*) as responses,
    count(*) filter (where mentioned) as mentions,
    sum(position) as position_sum,
    count(position) as position_n,
    sum(sentiment) as sentiment_sum,
    count(sentiment) as sentiment_n,
    max(_extracted_at) as ours_extracted_at
  from staging.chats
  where chat_date between @start_date and @end_date
  group by team_id, project_id, prompt_id, provider, chat_date
),
served as (
  select
    team_id, project_id, prompt_id, provider, date,
    max(value) filter (where metric = 'visibility') as visibility_api_pct,
    max(value) filter (where metric = 'position') as position_api,
    max(value) filter (where metric = 'sentiment') as sentiment_api,
    max(_extracted_at) as api_extracted_at
  from staging.prompt_metrics_daily
  where date between @start_date and @end_date
  group by team_id, project_id, prompt_id, provider, date
),
served_extent as (
  -- The last day of each prompt the API's charts were fetched for: later days are not fetched yet.
  select team_id, prompt_id, max(date) as served_to
  from staging.prompt_metrics_daily
  group by team_id, prompt_id
),
served_day_fetch as (
  -- When the API's charts of each prompt and day were fetched: a provider with no point that day was fetched then too.
  select team_id, prompt_id, date, max(_extracted_at) as day_extracted_at
  from staging.prompt_metrics_daily
  where date between @start_date and @end_date
  group by team_id, prompt_id, date
),
ours_extent as (
  -- The last day of each prompt our answers are modelled for: staging.chats stops before a partial newest day, so
  -- a value the API already serves for a later day waits for its answers.
  select team_id, prompt_id, max(chat_date) as ours_to
  from staging.chats
  group by team_id, prompt_id
),
side_by_side as (
  select
    coalesce(ours.team_id, served.team_id) as team_id,
    coalesce(ours.project_id, served.project_id) as project_id,
    coalesce(ours.prompt_id, served.prompt_id) as prompt_id,
    coalesce(ours.provider, served.provider) as provider,
    coalesce(ours.date, served.date) as date,
    coalesce(ours.responses, 0) as responses,
    coalesce(ours.mentions, 0) as mentions,
    round(100 * ours.mentions / ours.responses, 6) as visibility_ours_pct,
    served.visibility_api_pct,
    coalesce(ours.position_n, 0) as position_n,
    round(ours.position_sum / nullif(ours.position_n, 0), 6) as position_ours,
    served.position_api,
    coalesce(ours.sentiment_n, 0) as sentiment_n,
    round(ours.sentiment_sum / nullif(ours.sentiment_n, 0), 6) as sentiment_ours,
    served.sentiment_api,
    case when ours.prompt_id is null then 'api_only' when served.prompt_id is null then 'ours_only' else 'both' end
      as match_status,
    -- The API's value is not fetched yet (a day after the last fetched one), or was fetched before the day's late
    -- answers were published (D + 1 06:00 UTC) and before our answers of the day: the aggregate sync refreshes it
    -- on its rotation.
    (served.prompt_id is null and ours.date > coalesce(extent.served_to, ours.date - 1))
      or (ours.prompt_id is null and served.date > coalesce(ours_extent.ours_to, served.date - 1))
      or (served.api_extracted_at < ours.ours_extracted_at
        and served.api_extracted_at < cast(ours.date as timestamp) + interval 30 hour)
      -- No point for this provider in charts fetched before our (late) answers of the day arrived.
      or (served.prompt_id is null and day_fetch.day_extracted_at < ours.ours_extracted_at) as api_stale
  from ours
  full join served
    on served.team_id = ours.team_id
    and served.prompt_id = ours.prompt_id
    and served.provider = ours.provider
    and served.date = ours.date
  left join served_extent as extent on extent.team_id = ours.team_id and extent.prompt_id = ours.prompt_id
  left join served_day_fetch as day_fetch
    on day_fetch.team_id = ours.team_id and day_fetch.prompt_id = ours.prompt_id and day_fetch.date = ours.date
  left join ours_extent on ours_extent.team_id = served.team_id and ours_extent.prompt_id = served.prompt_id
),
diffs as (
  select
    *,
    round(visibility_ours_pct - visibility_api_pct, 6) as visibility_diff_pp,
    round(position_ours - position_api, 6) as position_diff,
    round(sentiment_ours - sentiment_api, 6) as sentiment_diff,
    (abs(round(visibility_ours_pct - visibility_api_pct, 6)) <= 0.0051 or (visibility_ours_pct is null and visibility_api_pct is null))
      and (abs(round(position_ours - position_api, 6)) <= 0.0051 or (position_ours is null and position_api is null))
      and (abs(round(sentiment_ours - sentiment_api, 6)) <= 0.0051 or (sentiment_ours is null and sentiment_api is null))
      as within_rounding_now
  from side_by_side
)
select
  diffs.team_id,
  diffs.project_id,
  diffs.prompt_id,
  prompts.prompt_content,
  diffs.provider,
  diffs.date,
  diffs.responses,
  diffs.mentions,
  diffs.visibility_ours_pct,
  diffs.visibility_api_pct,
  diffs.visibility_diff_pp,
  diffs.position_n,
  diffs.position_ours,
  diffs.position_api,
  diffs.position_diff,
  diffs.sentiment_n,
  diffs.sentiment_ours,
  diffs.sentiment_api,
  diffs.sentiment_diff,
  case
    when diffs.match_status = 'both' and diffs.within_rounding_now then 'both'
    when coalesce(diffs.api_stale, false) then 'pending'
    else diffs.match_status
  end as match_status,
  diffs.within_rounding_now and diffs.match_status = 'both' as within_rounding
from diffs
left join staging.prompts as prompts
  on prompts.team_id = diffs.team_id and prompts.prompt_id = diffs.prompt_id
