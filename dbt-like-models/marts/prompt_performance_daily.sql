/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# half a month a transaction: a month of 10 x an agency's answers peaked at 1,822 MiB of RSS built alone under the
# 1 GB DuckDB limit, half a month at 1,528 MiB for the same CPU (docs/scaling.md)
batch_days: 15
batch_rows: 60000 # more days a batch while they hold under 60,000 input rows: a small history in one (docs/models.md)
description: >
  The own brand's performance per prompt, provider (and 'all') and day, with the prompt's attributes as of that day
  from snapshots.prompts_history (valid_from <= day < valid_to). The history starts on the first sync day: for
  earlier days the earliest known version is used and attributes_source says 'earliest_known' instead of 'history'.
  Same formulas as marts.brand_visibility_daily (n = responses; Wilson 95%; averages null when their n is 0), plus
  the competition in the prompt's answers: answers naming at least one tracked competitor and the mentions of the
  competitor named most that day.
grain: one row per team, prompt, provider (chatgpt, perplexity, gemini, all) and date with answers
columns:
  team_id: the config's team
  project_id: the project
  prompt_id: the prompt
  provider: chatgpt | perplexity | gemini | all
  date: UTC day of the answers
  prompt_content: the prompt's text as of date
  prompt_type: the prompt's type as of date
  topic_id: topic as of date
  country: country as of date
  intent: intent as of date
  attributes_source: history (a version covers date) or earliest_known (date is before the first snapshot)
  responses: answers to the prompt that day
  mentions: answers naming the own brand
  visibility_pct: 100 mentions / responses
  visibility_ci_low_pct: Wilson 95% lower bound, percent
  visibility_ci_high_pct: Wilson 95% upper bound, percent
  position_sum: sum of the own brand's positions over mentioning answers
  position_n: mentioning answers with a position
  avg_position: position_sum / position_n, null when not named
  first_mentions: answers naming the own brand first
  first_mention_rate_pct: 100 first_mentions / responses
  position_weight_sum: sum of 1/position over mentioning answers
  position_weighted_visibility_pct: 100 position_weight_sum / responses
  sentiment_sum: sum of the own brand's sentiment over mentioning answers with one
  sentiment_n: answers contributing to sentiment_sum
  sentiment_avg: sentiment_sum / sentiment_n, null when sentiment_n = 0
  responses_with_competitor: answers naming at least one tracked competitor
  top_competitor_mentions: answers naming the competitor named most often that day (0 when none)
  top_competitor_visibility_pct: 100 top_competitor_mentions / responses
audits:
  - not_null: [team_id, project_id, prompt_id, provider, date, responses, mentions, prompt_content, prompt_type, attributes_source]
  - unique: [team_id, prompt_id, provider, date]
  - accepted_values: {column: provider, values: [chatgpt, perplexity, gemini, all]}
  - accepted_values: {column: attributes_source, values: [history, earliest_known]}
  - expression: {sql: "mentions <= responses and responses_with_competitor <= responses and top_competitor_mentions <= responses_with_competitor", name: counts_nested}
  - expression: {sql: "visibility_ci_low_pct <= visibility_pct and visibility_pct <= visibility_ci_high_pct", name: ci_brackets_visibility}
  - expression: {sql: "(sentiment_n = 0) = (sentiment_avg is null)", name: sentiment_null_iff_no_n}
*/
with answers as (
  select answers.team_id, answers.project_id, answers.prompt_id, answers.chat_id, answers.date, answers.provider,
    chats.mentioned, chats.position, chats.sentiment
  from intermediate.int_chats_by_provider as answers
  join staging.chats as chats on chats.team_id = answers.team_id and chats.chat_id = answers.chat_id
  where answers.date between @start_date and @end_date and chats.chat_date between @start_date and @end_date
),
competitor_answers as (
  select team_id, chat_id, brand_id
  from intermediate.int_brand_mentions_per_chat
  where not is_own_brand and chat_date between @start_date and @end_date
),
own_counts as (
  select
    team_id, project_id, prompt_id, provider, date,
    count(*) as responses,
    count(*) filter (where mentioned) as mentions,
    cast(coalesce(sum(position), 0) as bigint) as position_sum,
    count(position) as position_n,
    count(*) filter (where position = 1) as first_mentions,
    -- Summed as DECIMAL, exactly: a sum of doubles differs in its last digit with the order of its inputs.
    coalesce(cast(sum(cast(1 / position as decimal(18, 15))) as double), 0) as position_weight_sum,
    cast(sum(sentiment) as bigint) as sentiment_sum,
    count(sentiment) as sentiment_n
  from answers
  group by team_id, project_id, prompt_id, provider, date
),
with_competitor as (
  select answers.team_id, answers.prompt_id, answers.provider, answers.date, count(distinct answers.chat_id) as n
  from answers
  join competitor_answers
    on competitor_answers.team_id = answers.team_id and competitor_answers.chat_id = answers.chat_id
  group by all
),
per_competitor as (
  select answers.team_id, answers.prompt_id, answers.provider, answers.date, competitor_answers.brand_id,
    count(*) as mentions
  from answers
  join competitor_answers
    on competitor_answers.team_id = answers.team_id and competitor_answers.chat_id = answers.chat_id
  group by all
),
top_competitor as (
  select team_id, prompt_id, provider, date, max(mentions) as mentions
  from per_competitor
  group by all
),
versions as (
  select
    team_id, prompt_id, prompt_content, prompt_type, topic_id, country, intent,
    cast(valid_from as date) as valid_from_day,
    cast(valid_to as date) as valid_to_day,
    row_number() over (partition by team_id, prompt_id order by valid_from) as version_number
  from snapshots.prompts_history
),
attributes as (
  -- The version covering the day; before the first version, the first one (flagged).
  select
    own_counts.team_id, own_counts.prompt_id, own_counts.provider, own_counts.date,
    versions.prompt_content, versions.prompt_type, versions.topic_id, versions.country, versions.intent,
    case when own_counts.date >= versions.valid_from_day then 'history' else 'earliest_known' end
      as attributes_source
  from own_counts
  join versions
    on versions.team_id = own_counts.team_id
    and versions.prompt_id = own_counts.prompt_id
    and (own_counts.date >= versions.valid_from_day or versions.version_number = 1)
    and (versions.valid_to_day is null or own_counts.date < versions.valid_to_day)
  qualify row_number() over (
    partition by own_counts.team_id, own_counts.prompt_id, own_counts.provider, own_counts.date
    order by versions.valid_from_day desc
  ) = 1
),
current_prompts as (
  select team_id, prompt_id, prompt_content, prompt_type, topic_id, country, intent
  from staging.prompts
)
select
  own_counts.team_id,
  own_counts.project_id,
  own_counts.prompt_id,
  own_counts.provider,
  own_counts.date,
  coalesce(attributes.prompt_content, current_prompts.prompt_content) as prompt_content,
  coalesce(attributes.prompt_type, current_prompts.prompt_type) as prompt_type,
  coalesce(attributes.topic_id, current_prompts.topic_id) as topic_id,
  coalesce(attributes.country, current_prompts.country) as country,
  coalesce(attributes.intent, current_prompts.intent) as intent,
  coalesce(attributes.attributes_source, 'earliest_known') as attributes_source,
  own_counts.responses,
  own_counts.mentions,
  round(100 * own_counts.mentions / own_counts.responses, 2) as visibility_pct,
  round(100 * wilson_low(own_counts.mentions, own_counts.responses), 2) as visibility_ci_low_pct,
  round(100 * wilson_high(own_counts.mentions, own_counts.responses), 2) as visibility_ci_high_pct,
  own_counts.position_sum,
  own_counts.position_n,
  round(own_counts.position_sum / nullif(own_counts.position_n, 0), 2) as avg_position,
  own_counts.first_mentions,
  round(100 * own_counts.first_mentions / own_counts.responses, 2) as first_mention_rate_pct,
  own_counts.position_weight_sum,
  round(100 * own_counts.position_weight_sum / own_counts.responses, 2) as position_weighted_visibility_pct,
  own_counts.sentiment_sum,
  own_counts.sentiment_n,
  round(own_counts.sentiment_sum / nullif(own_counts.sentiment_n, 0), 2) as sentiment_avg,
  coalesce(with_competitor.n, 0) as responses_with_competitor,
  coalesce(top_competitor.mentions, 0) as top_competitor_mentions,
  round(100 * coalesce(top_competitor.mentions, 0) / own_counts.responses, 2) as top_competitor_visibility_pct
from own_counts
left join attributes
  on attributes.team_id = own_counts.team_id
  and attributes.prompt_id = own_counts.prompt_id
  and attributes.provider = own_counts.provider
  and attributes.date = own_counts.date
left join current_prompts
  on current_prompts.team_id = own_counts.team_id and current_prompts.prompt_id = own_counts.prompt_id
left join with_competitor
  on with_competitor.team_id = own_counts.team_id
  and with_competitor.prompt_id = own_counts.prompt_id
  and with_competitor.provider = own_counts.provider
  and with_competitor.date = own_counts.date
left join top_competitor
  on top_competitor.team_id = own_counts.team_id
  and top_competitor.prompt_id = own_counts.prompt_id
  and top_competitor.provider = own_counts.provider
  and top_competitor.date = own_counts.date
