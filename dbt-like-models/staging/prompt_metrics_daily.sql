/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
# a month a transaction: memory bounded by a month's rows, not the history's (10 x an agency: docs/models.md)
batch_days: 31
batch_rows: 100000 # more days a batch while they hold under 100,000 input rows: a small history in one (docs/models.md)
# The sync refreshes a prompt's charts on its rotation night (every `rotationDays`, up to 31) from its last
# refreshed day minus the sync's lookback: the days of rows landed since the last build are re-processed, however
# old (restate_landed), and the lookback re-reads days whose points the API stopped serving. Cut by day, so that
# marts.api_reconciliation, which reads it, re-processes the refreshed days only instead of the whole history.
lookback: 3
restate_landed: raw.prompt_metrics_daily
description: >
  The API's own daily per-provider figures of a prompt (the analytics charts), unpivoted: visibility (percent),
  position and sentiment, rounded by the API to 2 decimals. position and sentiment exist only for providers with a
  mention that day. These are served values, not counts: marts re-aggregate from staging.chats and compare
  (marts.api_reconciliation).
grain: one row per team, prompt, date, provider and metric
columns:
  date: the UTC day of the chart point
  provider: chatgpt | perplexity | gemini
  metric: visibility | position | sentiment
  value: the served value
  prompt_content: the prompt's current text
audits:
  - not_null: [team_id, prompt_id, date, provider, metric]
  - unique: [team_id, prompt_id, date, provider, metric]
  - accepted_values: {column: metric, values: [visibility, position, sentiment]}
*/
with metrics as (
  select
    team_id,
    project_id,
    prompt_id,
    date,
    provider,
    metric,
    value,
    _sync_run_id,
    _extracted_at
  from raw.prompt_metrics_daily
  where date between @start_date and @end_date
  qualify row_number() over (
    partition by team_id, prompt_id, date, provider, metric order by _extracted_at desc
  ) = 1
)
select
  metrics.team_id,
  metrics.project_id,
  metrics.prompt_id,
  prompts.prompt_content,
  metrics.date,
  metrics.provider,
  metrics.metric,
  metrics.value,
  metrics._sync_run_id,
  metrics._extracted_at
from metrics
left join staging.prompts as prompts
  on prompts.team_id = metrics.team_id and prompts.prompt_id = metrics.prompt_id
