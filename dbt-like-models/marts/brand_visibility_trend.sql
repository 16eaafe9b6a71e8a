/* @model
kind: incremental_by_time_range
tags: [daily]
time_column: date
batch_days: 31
batch_rows: 60000 # more days a batch while they hold under 60,000 input rows: a small history in one (docs/models.md)
reads_back: 56
description: >
  Rolling visibility of each tracked brand per provider (and 'all'): 7- and 28-day windows ending on each day,
  computed from summed counts (sum of mentions / sum of responses over the window, never an average of daily
  rates), with week-over-week (this 7 days against the 7 before) and month-over-month (this 28 days against the
  28 before) changes in percentage points and a 95% interval for each change.

  Fixed panel: a change compares the prompts answered in both of its windows. A prompt that started or stopped
  inside the span (marts.measurement_events) and was answered in one window only is left out of both sides of the
  change (`*_prompts_left_out`, the panel's answers `*_panel_responses`), so adding or deactivating a prompt moves
  no change; what it moves in the all-prompt figures is `*_prompt_mix_pp` (visibility_28d_pct −
  visibility_prev_28d_pct = mom_delta_pp + mom_prompt_mix_pp, up to rounding). When the prompt set did not change,
  the panel is every prompt and the mix 0. A moved prompt answered in both windows (started 20 days before the row,
  say) is a stratum of its own: the change is the Mantel–Haenszel weighted mean of the strata's changes (the prompts
  that did not move, pooled, and each such prompt; weight n·n_prev / (n + n_prev)), so its unequal days in the two
  windows do not move the change by its own level (pooled, they did: up to 2.7 points on a test world).

  Test: two independent proportions, Newcombe's hybrid score interval (method 10, built from the two Wilson
  intervals): for p1 (current window, Wilson l1..u1) and p2 (previous window, l2..u2), the change d = p1 - p2 has
  the interval [d - sqrt((p1 - l1)² + (u2 - p2)²), d + sqrt((u1 - p1)² + (p2 - l2)²)]; with strata, MOVER combines
  them: d ∓ sqrt(Σ w²·(the stratum's squared lower / upper Newcombe side)) / Σ w (one stratum: Newcombe's). `wow_ci_excludes_zero` /
  `mom_ci_excludes_zero` is true when that interval excludes zero (decided on the published 2-decimal bounds): a
  per-test reading with no multiple-comparison control, not for alerting (of the many changes tested each day, a
  share of those are noise). It treats answers as independent; repeated answers to the
  same prompt are correlated, so the interval is somewhat narrow for brands whose visibility differs a lot between
  prompts (a prompt-level paired test would be the conservative alternative; see docs/analytics.md).

  Alerts: each day, the week- and month-over-month changes of every brand and provider are tested against "the
  change exceeds 1 point" week over week and "0.5 point" month over month (so a drift of a fraction of a point is no
  discovery; a month holds four times a week's answers, so its margin is half), and Benjamini–Hochberg over the
  team's tests of the day of each kind decides `wow_significant` / `mom_significant` (the decision to filter on):
  q = 0.05 over the month-over-month tests, q = 0.01 over the week-over-week tests (a week holds a quarter of a
  month's answers, so few true weekly changes are detectable and at q = 0.05 most weekly discoveries were noise);
  `*_alert` marks the first day of each run of discoveries in one direction. Spans holding a measurement change
  other than a prompt starting or stopping (an alias, a competitor tracked or dropped, which the panel cannot take
  out) are not tested.

  The series has one row per calendar day from the brand's first day in marts.brand_visibility_daily to the run's
  last day, as long as one of the 56 days ending on it has answers of the series (a day without answers counts 0
  responses, so a window is always 7 or 28 calendar days); a day whose answers are not all in yet
  (intermediate.int_day_completeness) has no row until they are. A row depends only on the days up to its own, so a
  provider or a project that pauses has the same rows for the days of its pause whether they were built during it
  or after it resumed.

  Built by day: a day's row reads the 55 days before it (its previous 28-day window) and, for its alert, the day
  before's discoveries, which read one day further: 56 days. A build reads the days it writes and the 56 before them
  (each series' first and last day over every day), and `reads_back: 56` makes any day re-processed here (a day
  rewritten upstream) also re-process the 56 days after it.
grain: one row per team, project, brand, provider (chatgpt, perplexity, gemini, all) and calendar day
columns:
  team_id: the config's team
  project_id: the project
  brand_id: staging.tracked_brands.brand_id
  brand_name: the brand's current name
  is_own_brand: the row is the project's own brand
  provider: chatgpt | perplexity | gemini | all
  date: last day of the windows (inclusive)
  series_day: 1 for the series' first day; previous windows are complete from day 14 (7-day) and 56 (28-day)
  responses: answers on this day
  mentions: answers naming the brand on this day
  responses_7d: answers in the 7 days ending on date
  mentions_7d: answers naming the brand in those 7 days
  visibility_7d_pct: 100 mentions_7d / responses_7d
  visibility_7d_ci_low_pct: Wilson 95% lower bound of visibility_7d_pct
  visibility_7d_ci_high_pct: Wilson 95% upper bound of visibility_7d_pct
  avg_position_7d: position_sum / position_n over the 7 days
  sentiment_avg_7d: sentiment_sum / sentiment_n over the 7 days, null when n = 0
  responses_prev_7d: answers in the 7 days before that (date-13 .. date-7)
  mentions_prev_7d: answers naming the brand in those days
  visibility_prev_7d_pct: 100 mentions_prev_7d / responses_prev_7d
  wow_delta_pp: the change of the prompts answered in both 7-day windows (the fixed panel, by strata), percentage points; visibility_7d_pct - visibility_prev_7d_pct when the prompt set did not change
  wow_ci_low_pp: Newcombe 95% lower bound of the change (MOVER over the strata)
  wow_ci_high_pp: Newcombe 95% upper bound of the change (MOVER over the strata)
  wow_significant: the week-over-week change is a discovery (Benjamini–Hochberg at q = 0.01 over the team's week-over-week tests of the day, against "the change exceeds 1 point"), the decision the alerts use
  wow_ci_excludes_zero: per test only (no multiple-comparison control), not for alerting; true when the change's 95% interval excludes zero
  wow_prompts_left_out: prompts answered in one of the two 7-day windows only (started or stopped), left out of the change
  wow_panel_responses: answers of the panel in the 7 days (the n of the change's current side)
  wow_panel_prev_responses: answers of the panel in the 7 days before
  wow_prompt_mix_pp: what the prompts left out (and a moved prompt's unequal days in the two windows) move in the all-prompt change (visibility_7d_pct - visibility_prev_7d_pct - wow_delta_pp), 0 when the prompt set did not change
  responses_28d: answers in the 28 days ending on date
  mentions_28d: answers naming the brand in those 28 days
  visibility_28d_pct: 100 mentions_28d / responses_28d
  visibility_28d_ci_low_pct: Wilson 95% lower bound of visibility_28d_pct
  visibility_28d_ci_high_pct: Wilson 95% upper bound of visibility_28d_pct
  avg_position_28d: position_sum / position_n over the 28 days
  sentiment_avg_28d: sentiment_sum / sentiment_n over the 28 days, null when n = 0
  responses_prev_28d: answers in the 28 days before that (date-55 .. date-28)
  mentions_prev_28d: answers naming the brand in those days
  visibility_prev_28d_pct: 100 mentions_prev_28d / responses_prev_28d
  mom_delta_pp: the change of the prompts answered in both 28-day windows (the fixed panel, by strata), percentage points; visibility_28d_pct - visibility_prev_28d_pct when the prompt set did not change
  mom_ci_low_pp: Newcombe 95% lower bound of the change (MOVER over the strata)
  mom_ci_high_pp: Newcombe 95% upper bound of the change (MOVER over the strata)
  mom_significant: the month-over-month change is a discovery (Benjamini–Hochberg at q = 0.05 over the team's month-over-month tests of the day, against "the change exceeds 0.5 point"), the decision the alerts use
  mom_ci_excludes_zero: per test only (no multiple-comparison control), not for alerting; true when the change's 95% interval excludes zero
  mom_prompts_left_out: prompts answered in one of the two 28-day windows only, left out of the change
  mom_panel_responses: answers of the panel in the 28 days
  mom_panel_prev_responses: answers of the panel in the 28 days before
  mom_prompt_mix_pp: visibility_28d_pct - visibility_prev_28d_pct - mom_delta_pp, 0 when the prompt set did not change
  position_n_7d: answers with a position in the 7 days (the n of avg_position_7d)
  sentiment_n_7d: answers with a sentiment in the 7 days (the n of sentiment_avg_7d)
  position_n_28d: the n of avg_position_28d
  sentiment_n_28d: the n of sentiment_avg_28d
  measurement_change_wow: a measurement change other than a prompt starting or stopping (marts.measurement_events, of this brand or the whole project) falls in date − 12 .. date, so the week-over-week change mixes it in; not tested
  measurement_change_mom: the same over date − 54 .. date, for month over month
  wow_p_value: one-sided p-value that the week-over-week change exceeds 1 point in its direction (null when not tested)
  wow_alert: wow_significant and not already discovered in the same direction the day before (once per episode)
  mom_p_value: one-sided p-value that the month-over-month change exceeds 0.5 point in its direction (null when not tested)
  mom_alert: the same for month over month
  wow_mde_pp: "minimum detectable week-over-week change at 80% power, percentage points: the 1-point margin plus (z at the threshold Benjamini–Hochberg used that day, q·k/m, or q/m with no discovery, + z at 80%) × the change's standard error; a true change of that size in either direction is discovered 80% of the time (null when not tested)"
  mom_mde_pp: the same for month over month (0.5-point margin, q = 0.05)
audits:
  - not_null: [team_id, project_id, brand_id, provider, date, responses_7d, mentions_7d, wow_significant, mom_significant]
  - unique: [team_id, project_id, brand_id, provider, date]
  - expression: {sql: "mentions_7d <= responses_7d and mentions_28d <= responses_28d and responses_7d <= responses_28d", name: window_counts_consistent}
  - expression: {sql: "wow_ci_excludes_zero = coalesce(wow_ci_low_pp > 0 or wow_ci_high_pp < 0, false)", name: wow_ci_excludes_zero_iff_interval_excludes_zero}
  - expression: {sql: "mom_ci_excludes_zero = coalesce(mom_ci_low_pp > 0 or mom_ci_high_pp < 0, false)", name: mom_ci_excludes_zero_iff_interval_excludes_zero}
  - expression: {sql: "(not wow_significant or wow_p_value is not null) and (not mom_significant or mom_p_value is not null)", name: significant_only_when_tested}
  - expression: {sql: "mom_delta_pp is null or mom_delta_pp between mom_ci_low_pp and mom_ci_high_pp", name: mom_delta_inside_interval}
  - expression: {sql: "wow_delta_pp is null or wow_delta_pp between wow_ci_low_pp and wow_ci_high_pp", name: wow_delta_inside_interval}
*/
with all_days as (
  -- Complete days only: a partial day (late answers not in yet) would read as a drop.
  select
    d.team_id, d.project_id, d.brand_id, d.brand_name, d.is_own_brand, d.provider, d.date,
    d.responses, d.mentions, d.position_sum, d.position_n, d.sentiment_sum, d.sentiment_n
  from marts.brand_visibility_daily as d
  join intermediate.int_day_completeness as c
    on c.team_id = d.team_id and c.project_id = d.project_id and c.date = d.date and c.is_complete
),
daily as (
  -- What the days built read: themselves and the 56 days before them.
  select * from all_days where date between @start_date - 56 and @end_date
),
partial_days as (
  -- The project's days whose answers are not all in yet (its newest): no row until they are.
  select team_id, project_id, date from intermediate.int_day_completeness
  where not is_complete and date between @start_date and @end_date
),
events as (
  -- Measurement changes that move this brand's figures (brand_id null: every brand of the project), other than a
  -- prompt starting or stopping: the change of the prompts answered in both windows (the fixed panel below) leaves
  -- that one out.
  select team_id, project_id, brand_id, date from marts.measurement_events
  where kind not in ('prompt_started', 'prompt_stopped')
),
moved_events as (
  -- Prompts that started or stopped being answered, and the day: in a span holding such a day (after its first day,
  -- as for `flagged` below) the prompt may be answered in one window only, or on fewer days of one, and so not be
  -- part of the pooled panel. Outside every such span it was answered through both windows or in neither, like a
  -- prompt that never moved. The spans of the days built (and the day before them) reach back to @start_date - 55.
  select team_id, project_id, subject as prompt_id, date
  from marts.measurement_events
  where kind in ('prompt_started', 'prompt_stopped') and date between @start_date - 55 and @end_date
),
moved_prompts as (
  select distinct team_id, project_id, prompt_id from moved_events
),
moved_answers as (
  select a.team_id, a.project_id, a.prompt_id, a.chat_id, a.provider, a.date
  from intermediate.int_chats_by_provider as a
  join moved_prompts as m on m.team_id = a.team_id and m.project_id = a.project_id and m.prompt_id = a.prompt_id
  join intermediate.int_day_completeness as c
    on c.team_id = a.team_id and c.project_id = a.project_id and c.date = a.date and c.is_complete
  where a.date between @start_date - 56 and @end_date
),
moved_mentions as (
  -- The tracked mentions of the days read (a mention's day is its answer's): the table is kept in day order, so
  -- the filter skips the rest of the history instead of hashing all of its mentions (at 10 × an agency, 9 M of them
  -- for a night's 1.6 M).
  select team_id, chat_id, brand_id from intermediate.int_brand_mentions_per_chat
  where chat_date between @start_date - 56 and @end_date
),
moved_days as (
  -- Per series (on the days it has rows), moved prompt and day: its answers and those naming the brand.
  select
    d.team_id, d.project_id, d.brand_id, d.provider, a.prompt_id, d.date,
    count(*) as responses,
    count(t.brand_id) as mentions
  from daily as d
  join moved_answers as a
    on a.team_id = d.team_id and a.project_id = d.project_id and a.provider = d.provider and a.date = d.date
  left join moved_mentions as t
    on t.team_id = a.team_id and t.chat_id = a.chat_id and t.brand_id = d.brand_id
  group by all
),
moved_calendar as (
  select
    team_id, project_id, brand_id, provider, prompt_id,
    cast(unnest(generate_series(min(date), least(max(date) + 55, @end_date), interval 1 day)) as date) as date
  from moved_days
  group by all
),
moved_windows as (
  -- The moved prompt's counts in the four windows of a day, for the series and for the project (provider all,
  -- whatever the brand: whether the prompt was answered in a window at all).
  select
    k.team_id, k.project_id, k.brand_id, k.provider, k.prompt_id, k.date,
    sum(coalesce(m.responses, 0)) over (w rows between 6 preceding and current row) as n7,
    sum(coalesce(m.mentions, 0)) over (w rows between 6 preceding and current row) as x7,
    sum(coalesce(m.responses, 0)) over (w rows between 13 preceding and 7 preceding) as n_prev7,
    sum(coalesce(m.mentions, 0)) over (w rows between 13 preceding and 7 preceding) as x_prev7,
    sum(coalesce(m.responses, 0)) over (w rows between 27 preceding and current row) as n28,
    sum(coalesce(m.mentions, 0)) over (w rows between 27 preceding and current row) as x28,
    sum(coalesce(m.responses, 0)) over (w rows between 55 preceding and 28 preceding) as n_prev28,
    sum(coalesce(m.mentions, 0)) over (w rows between 55 preceding and 28 preceding) as x_prev28
  from moved_calendar as k
  left join moved_days as m
    on m.team_id = k.team_id and m.project_id = k.project_id and m.brand_id = k.brand_id
    and m.provider = k.provider and m.prompt_id = k.prompt_id and m.date = k.date
  window w as (partition by k.team_id, k.project_id, k.brand_id, k.provider, k.prompt_id order by k.date)
),
moved_answered as (
  -- The days a prompt moved in the 56-day span (`wow_span`: in the 14-day one too), and whether it was answered (by
  -- any provider) in each window of the day: the project's view, so every brand and provider of the project compares
  -- the same panel. A day whose spans hold no start or stop of the prompt has no row: the prompt stays pooled. Per
  -- change: `*_out`, answered in one of its windows only (left out); `*_both`, in both (a stratum of its own).
  select
    *,
    wow_span and in7 <> in_prev7 as wow_out,
    wow_span and in7 and in_prev7 as wow_both,
    in28 <> in_prev28 as mom_out,
    in28 and in_prev28 as mom_both
  from (
    select w.team_id, w.project_id, w.prompt_id, w.date,
      bool_or(e.date >= w.date - 12) as wow_span,
      coalesce(bool_or(w.n7 > 0), false) as in7, coalesce(bool_or(w.n_prev7 > 0), false) as in_prev7,
      coalesce(bool_or(w.n28 > 0), false) as in28, coalesce(bool_or(w.n_prev28 > 0), false) as in_prev28
    from moved_windows as w
    join moved_events as e
      on e.team_id = w.team_id and e.project_id = w.project_id and e.prompt_id = w.prompt_id
      and e.date between w.date - 54 and w.date
    where w.provider = 'all' and w.date >= @start_date - 1
    group by all
  )
),
left_out as (
  -- Per series and day: the answers of the prompts answered in one of the two windows only (left out of the change),
  -- and the moved prompts answered in both, each its own stratum of the change (below): its counts (taken out of the
  -- pooled panel), its Mantel–Haenszel weight w = n·n_prev / (n + n_prev), w × its change and w² × the squared sides
  -- of its Newcombe interval. The weights and sides are summed as DECIMAL, exactly: a sum of doubles differs in its
  -- last bits with the order DuckDB's threads add them in, so a change of exactly 0 came out 0 in one build and 1e-17
  -- (tested, with a p-value) in another, and a 2-decimal figure could round either way (at 10 × an agency, 2–4 of a
  -- night's 9,712 rows differed between two runs of the same query).
  select
    w.team_id, w.project_id, w.brand_id, w.provider, w.date,
    count(*) filter (where a.wow_out) as wow_prompts_left_out,
    sum(w.n7) filter (where a.wow_out) as wow_out_n,
    sum(w.x7) filter (where a.wow_out) as wow_out_x,
    sum(w.n_prev7) filter (where a.wow_out) as wow_out_n_prev,
    sum(w.x_prev7) filter (where a.wow_out) as wow_out_x_prev,
    sum(w.n7) filter (where a.wow_both) as wow_st_n,
    sum(w.x7) filter (where a.wow_both) as wow_st_x,
    sum(w.n_prev7) filter (where a.wow_both) as wow_st_n_prev,
    sum(w.x_prev7) filter (where a.wow_both) as wow_st_x_prev,
    cast(sum(cast(mh_weight(w.n7, w.n_prev7) as decimal(38, 18))) filter (where a.wow_both) as double) as wow_st_w,
    cast(sum(cast(mh_weight(w.n7, w.n_prev7) * (w.x7 / nullif(w.n7, 0) - w.x_prev7 / nullif(w.n_prev7, 0)) as decimal(38, 18)))
      filter (where a.wow_both and w.n7 > 0 and w.n_prev7 > 0) as double) as wow_st_wd,
    cast(sum(cast(mh_weight(w.n7, w.n_prev7) ^ 2 * newcombe_low_sq(w.x7, w.n7, w.x_prev7, w.n_prev7) as decimal(38, 18)))
      filter (where a.wow_both and w.n7 > 0 and w.n_prev7 > 0) as double) as wow_st_lo2,
    cast(sum(cast(mh_weight(w.n7, w.n_prev7) ^ 2 * newcombe_high_sq(w.x7, w.n7, w.x_prev7, w.n_prev7) as decimal(38, 18)))
      filter (where a.wow_both and w.n7 > 0 and w.n_prev7 > 0) as double) as wow_st_hi2,
    count(*) filter (where a.mom_out) as mom_prompts_left_out,
    sum(w.n28) filter (where a.mom_out) as mom_out_n,
    sum(w.x28) filter (where a.mom_out) as mom_out_x,
    sum(w.n_prev28) filter (where a.mom_out) as mom_out_n_prev,
    sum(w.x_prev28) filter (where a.mom_out) as mom_out_x_prev,
    sum(w.n28) filter (where a.mom_both) as mom_st_n,
    sum(w.x28) filter (where a.mom_both) as mom_st_x,
    sum(w.n_prev28) filter (where a.mom_both) as mom_st_n_prev,
    sum(w.x_prev28) filter (where a.mom_both) as mom_st_x_prev,
    cast(sum(cast(mh_weight(w.n28, w.n_prev28) as decimal(38, 18))) filter (where a.mom_both) as double) as mom_st_w,
    cast(sum(cast(mh_weight(w.n28, w.n_prev28) * (w.x28 / nullif(w.n28, 0) - w.x_prev28 / nullif(w.n_prev28, 0)) as decimal(38, 18)))
      filter (where a.mom_both and w.n28 > 0 and w.n_prev28 > 0) as double) as mom_st_wd,
    cast(sum(cast(mh_weight(w.n28, w.n_prev28) ^ 2 * newcombe_low_sq(w.x28, w.n28, w.x_prev28, w.n_prev28) as decimal(38, 18)))
      filter (where a.mom_both and w.n28 > 0 and w.n_prev28 > 0) as double) as mom_st_lo2,
    cast(sum(cast(mh_weight(w.n28, w.n_prev28) ^ 2 * newcombe_high_sq(w.x28, w.n28, w.x_prev28, w.n_prev28) as decimal(38, 18)))
      filter (where a.mom_both and w.n28 > 0 and w.n_prev28 > 0) as double) as mom_st_hi2
  from moved_windows as w
  join moved_answered as a
    on a.team_id = w.team_id and a.project_id = w.project_id and a.prompt_id = w.prompt_id and a.date = w.date
  -- the days built and the day before them (whose discoveries their alerts read): the days read before those are
  -- only the windows' inputs
  where w.date >= @start_date - 1
  group by all
),
series as (
  select
    team_id, project_id, brand_id, provider,
    any_value(brand_name) as brand_name,
    bool_or(is_own_brand) as is_own_brand,
    min(date) as first_day,
    max(date) as last_day
  from all_days
  group by team_id, project_id, brand_id, provider
),
calendar as (
  -- Every day from the series' first day to the run's last, not to the series' own last day: a day's row depends
  -- only on the days up to it, so a series that stops (a provider or the whole project paused) has the same rows
  -- for the days of its pause whether they were built during it (by night) or after it resumed (from scratch).
  -- 55 days after its last answer no window holds any: no more rows (answer_days_56d below).
  select
    team_id, project_id, brand_id, provider, brand_name, is_own_brand, first_day,
    cast(unnest(generate_series(
      greatest(first_day, @start_date - 56), least(last_day + 55, @end_date), interval 1 day)) as date) as date
  from series
),
filled as (
  select
    calendar.*,
    coalesce(daily.responses, 0) as responses,
    coalesce(daily.mentions, 0) as mentions,
    coalesce(daily.position_sum, 0) as position_sum,
    coalesce(daily.position_n, 0) as position_n,
    coalesce(daily.sentiment_sum, 0) as sentiment_sum,
    coalesce(daily.sentiment_n, 0) as sentiment_n,
    (daily.date is not null)::int as has_answers,
    partial_days.date is not null as is_partial
  from calendar
  left join daily
    on daily.team_id = calendar.team_id
    and daily.project_id = calendar.project_id
    and daily.brand_id = calendar.brand_id
    and daily.provider = calendar.provider
    and daily.date = calendar.date
  left join partial_days
    on partial_days.team_id = calendar.team_id
    and partial_days.project_id = calendar.project_id
    and partial_days.date = calendar.date
),
windows as (
  -- One row per calendar day, so ROWS frames are calendar windows.
  select
    *,
    date - first_day + 1 as series_day,
    cast(sum(responses) over (w rows between 6 preceding and current row) as bigint) as responses_7d,
    cast(sum(mentions) over (w rows between 6 preceding and current row) as bigint) as mentions_7d,
    sum(position_sum) over (w rows between 6 preceding and current row) as position_sum_7d,
    sum(position_n) over (w rows between 6 preceding and current row) as position_n_7d,
    sum(sentiment_sum) over (w rows between 6 preceding and current row) as sentiment_sum_7d,
    sum(sentiment_n) over (w rows between 6 preceding and current row) as sentiment_n_7d,
    cast(sum(responses) over (w rows between 13 preceding and 7 preceding) as bigint) as responses_prev_7d,
    cast(sum(mentions) over (w rows between 13 preceding and 7 preceding) as bigint) as mentions_prev_7d,
    cast(sum(responses) over (w rows between 27 preceding and current row) as bigint) as responses_28d,
    cast(sum(mentions) over (w rows between 27 preceding and current row) as bigint) as mentions_28d,
    sum(position_sum) over (w rows between 27 preceding and current row) as position_sum_28d,
    sum(position_n) over (w rows between 27 preceding and current row) as position_n_28d,
    sum(sentiment_sum) over (w rows between 27 preceding and current row) as sentiment_sum_28d,
    sum(sentiment_n) over (w rows between 27 preceding and current row) as sentiment_n_28d,
    cast(sum(responses) over (w rows between 55 preceding and 28 preceding) as bigint) as responses_prev_28d,
    cast(sum(mentions) over (w rows between 55 preceding and 28 preceding) as bigint) as mentions_prev_28d,
    sum(has_answers) over (w rows between 55 preceding and current row) as answer_days_56d
  from filled
  window w as (partition by team_id, project_id, brand_id, provider order by date)
),
complete as (
  -- A previous window counts only when it is complete (the series is long enough) and has answers.
  select
    * replace (
      case when series_day >= 14 then responses_prev_7d end as responses_prev_7d,
      case when series_day >= 14 then mentions_prev_7d end as mentions_prev_7d,
      case when series_day >= 56 then responses_prev_28d end as responses_prev_28d,
      case when series_day >= 56 then mentions_prev_28d end as mentions_prev_28d
    )
  from windows
),
flagged as (
  -- Does the 14-day (week over week) or 56-day (month over month) span hold a measurement change? A change on
  -- the span's first day moves nothing inside it, so the span starts the day after.
  select
    w.*,
    exists (
      select 1 from events as e
      where e.team_id = w.team_id and e.project_id = w.project_id
        and (e.brand_id is null or e.brand_id = w.brand_id)
        and e.date between w.date - 12 and w.date
    ) as measurement_change_wow,
    exists (
      select 1 from events as e
      where e.team_id = w.team_id and e.project_id = w.project_id
        and (e.brand_id is null or e.brand_id = w.brand_id)
        and e.date between w.date - 54 and w.date
    ) as measurement_change_mom
  from complete as w
),
panel as (
  -- The fixed panel: the window counts without the prompts answered in one of the two windows only (a prompt that
  -- started or stopped inside the span). Equal to the window counts when the prompt set did not change. Its strata:
  -- the prompts that did not move, pooled (u*), and each moved prompt answered in both windows (st_*).
  select
    f.*,
    coalesce(o.wow_prompts_left_out, 0) as wow_prompts_left_out,
    coalesce(o.mom_prompts_left_out, 0) as mom_prompts_left_out,
    f.responses_7d - coalesce(o.wow_out_n, 0) as pn7,
    f.mentions_7d - coalesce(o.wow_out_x, 0) as px7,
    f.responses_prev_7d - coalesce(o.wow_out_n_prev, 0) as pn_prev7,
    f.mentions_prev_7d - coalesce(o.wow_out_x_prev, 0) as px_prev7,
    f.responses_28d - coalesce(o.mom_out_n, 0) as pn28,
    f.mentions_28d - coalesce(o.mom_out_x, 0) as px28,
    f.responses_prev_28d - coalesce(o.mom_out_n_prev, 0) as pn_prev28,
    f.mentions_prev_28d - coalesce(o.mom_out_x_prev, 0) as px_prev28,
    pn7 - coalesce(o.wow_st_n, 0) as un7,
    px7 - coalesce(o.wow_st_x, 0) as ux7,
    pn_prev7 - coalesce(o.wow_st_n_prev, 0) as un_prev7,
    px_prev7 - coalesce(o.wow_st_x_prev, 0) as ux_prev7,
    pn28 - coalesce(o.mom_st_n, 0) as un28,
    px28 - coalesce(o.mom_st_x, 0) as ux28,
    pn_prev28 - coalesce(o.mom_st_n_prev, 0) as un_prev28,
    px_prev28 - coalesce(o.mom_st_x_prev, 0) as ux_prev28,
    coalesce(o.wow_st_w, 0) as wow_st_w,
    coalesce(o.wow_st_wd, 0) as wow_st_wd,
    coalesce(o.wow_st_lo2, 0) as wow_st_lo2,
    coalesce(o.wow_st_hi2, 0) as wow_st_hi2,
    coalesce(o.mom_st_w, 0) as mom_st_w,
    coalesce(o.mom_st_wd, 0) as mom_st_wd,
    coalesce(o.mom_st_lo2, 0) as mom_st_lo2,
    coalesce(o.mom_st_hi2, 0) as mom_st_hi2
  from flagged as f
  left join left_out as o
    on o.team_id = f.team_id and o.project_id = f.project_id and o.brand_id = f.brand_id
    and o.provider = f.provider and o.date = f.date
),
strata as (
  -- The pooled stratum's weight (0 when one of its windows is empty) and the total weight of the change.
  select
    *,
    case when un7 > 0 and un_prev7 > 0 then mh_weight(un7, un_prev7) else 0 end as wow_uw,
    case when un28 > 0 and un_prev28 > 0 then mh_weight(un28, un_prev28) else 0 end as mom_uw,
    case when responses_prev_7d is not null then nullif(wow_uw + wow_st_w, 0) end as wow_w,
    case when responses_prev_28d is not null then nullif(mom_uw + mom_st_w, 0) end as mom_w
  from panel
),
changes as (
  -- Proportions and their Wilson intervals over all prompts; each change over the fixed panel as the
  -- Mantel–Haenszel weighted mean of its strata's changes, and its interval by MOVER from each stratum's Newcombe
  -- sides (macros/stats.sql): with one stratum (no moved prompt answered in both windows) the panel's change and
  -- Newcombe's interval. The prompt mix is what the prompts left out, and the moved prompts' unequal days in the two
  -- windows, would have added to the change.
  select
    *,
    mentions_7d / nullif(responses_7d, 0) as p7,
    wilson_low(mentions_7d, responses_7d) as p7_lo,
    wilson_high(mentions_7d, responses_7d) as p7_hi,
    mentions_prev_7d / nullif(responses_prev_7d, 0) as q7,
    case when wow_uw > 0 then wow_uw * (ux7 / un7 - ux_prev7 / un_prev7) else 0 end as wow_uwd,
    (wow_uwd + wow_st_wd) / wow_w as wow,
    wow - sqrt(case when wow_uw > 0 then wow_uw ^ 2 * newcombe_low_sq(ux7, un7, ux_prev7, un_prev7) else 0 end
      + wow_st_lo2) / wow_w as wow_lo,
    wow + sqrt(case when wow_uw > 0 then wow_uw ^ 2 * newcombe_high_sq(ux7, un7, ux_prev7, un_prev7) else 0 end
      + wow_st_hi2) / wow_w as wow_hi,
    (p7 - q7) - wow as wow_mix,
    mentions_28d / nullif(responses_28d, 0) as p28,
    wilson_low(mentions_28d, responses_28d) as p28_lo,
    wilson_high(mentions_28d, responses_28d) as p28_hi,
    mentions_prev_28d / nullif(responses_prev_28d, 0) as q28,
    case when mom_uw > 0 then mom_uw * (ux28 / un28 - ux_prev28 / un_prev28) else 0 end as mom_uwd,
    (mom_uwd + mom_st_wd) / mom_w as mom,
    mom - sqrt(case when mom_uw > 0 then mom_uw ^ 2 * newcombe_low_sq(ux28, un28, ux_prev28, un_prev28) else 0 end
      + mom_st_lo2) / mom_w as mom_lo,
    mom + sqrt(case when mom_uw > 0 then mom_uw ^ 2 * newcombe_high_sq(ux28, un28, ux_prev28, un_prev28) else 0 end
      + mom_st_hi2) / mom_w as mom_hi,
    (p28 - q28) - mom as mom_mix
  from strata
),
tests as (
  -- One-sided test that the change exceeds 1 point (week over week) or 0.5 point (month over month) in its own
  -- direction, with the standard error read off the Newcombe interval's inner side (its half-width / 1.96). Not
  -- tested when a measurement change other than a prompt starting or stopping falls in the span.
  select
    *,
    case when wow is not null and wow <> 0 and not measurement_change_wow then
      normal_sf((abs(wow) - 0.01) / nullif((case when wow > 0 then wow - wow_lo else wow_hi - wow end) / 1.959964, 0))
    end as wow_p,
    case when mom is not null and mom <> 0 and not measurement_change_mom then
      normal_sf((abs(mom) - 0.005) / nullif((case when mom > 0 then mom - mom_lo else mom_hi - mom end) / 1.959964, 0))
    end as mom_p
  from changes
),
family as (
  -- Benjamini–Hochberg per team, day and kind of change (every project, brand and provider): q = 0.01 for week over
  -- week, 0.05 for month over month. Per team, so a team's alerts do not depend on the other teams in the warehouse.
  -- (The days built and the day before them, whose discoveries their alerts read.)
  select team_id, project_id, brand_id, provider, date, 'wow' as metric, wow_p as p from tests
  where wow_p is not null and date >= @start_date - 1
  union all
  select team_id, project_id, brand_id, provider, date, 'mom', mom_p from tests
  where mom_p is not null and date >= @start_date - 1
),
ranked as (
  select
    *,
    row_number() over (partition by team_id, date, metric order by p, project_id, brand_id, provider) as k,
    count(*) over (partition by team_id, date, metric) as m
  from family
),
bh as (
  select
    *,
    k <= coalesce(max(case when p <= (case metric when 'wow' then 0.01 else 0.05 end) * k / m then k end)
      over (partition by team_id, date, metric), 0) as discovered
  from ranked
),
thresholds as (
  -- The p-value threshold Benjamini–Hochberg used for the family: q·k/m at its largest discovery k, or q/m (what the
  -- first discovery would have needed) when it made none. The minimum detectable change is read at it.
  select
    team_id, date, metric,
    (case metric when 'wow' then 0.01 else 0.05 end) * greatest(count(*) filter (where discovered), 1) / count(*)
      as alpha
  from bh
  group by team_id, date, metric
),
decided as (
  select
    t.*,
    coalesce(w.discovered, false) as wow_disc,
    coalesce(mo.discovered, false) as mom_disc,
    -- MDE at 80% power against the same margin, at the family's threshold, with the change's standard error (the
    -- Newcombe interval's half-width / 1.96): what size of change this test could have seen. Null where not tested.
    case when t.wow is not null and not t.measurement_change_wow then
      mde80(0.01, wa.alpha, (t.wow_hi - t.wow_lo) / (2 * 1.959964)) end as wow_mde,
    case when t.mom is not null and not t.measurement_change_mom then
      mde80(0.005, ma.alpha, (t.mom_hi - t.mom_lo) / (2 * 1.959964)) end as mom_mde
  from tests as t
  left join thresholds as wa on wa.metric = 'wow' and wa.team_id = t.team_id and wa.date = t.date
  left join thresholds as ma on ma.metric = 'mom' and ma.team_id = t.team_id and ma.date = t.date
  left join bh as w
    on w.metric = 'wow' and w.team_id = t.team_id and w.project_id = t.project_id and w.brand_id = t.brand_id
    and w.provider = t.provider and w.date = t.date
  left join bh as mo
    on mo.metric = 'mom' and mo.team_id = t.team_id and mo.project_id = t.project_id and mo.brand_id = t.brand_id
    and mo.provider = t.provider and mo.date = t.date
),
episodes as (
  -- An alert opens an episode: discovered today, and not discovered in the same direction the day before.
  select
    *,
    wow_disc and not coalesce(
      lag(wow_disc and wow > 0) over s = (wow > 0) and lag(wow_disc) over s, false) as wow_alert_open,
    mom_disc and not coalesce(
      lag(mom_disc and mom > 0) over s = (mom > 0) and lag(mom_disc) over s, false) as mom_alert_open
  from decided
  window s as (partition by team_id, project_id, brand_id, provider order by date)
)
select
  team_id,
  project_id,
  brand_id,
  brand_name,
  is_own_brand,
  provider,
  date,
  series_day,
  responses,
  mentions,
  responses_7d,
  mentions_7d,
  round(100 * p7, 2) as visibility_7d_pct,
  round(100 * p7_lo, 2) as visibility_7d_ci_low_pct,
  round(100 * p7_hi, 2) as visibility_7d_ci_high_pct,
  round(position_sum_7d / nullif(position_n_7d, 0), 2) as avg_position_7d,
  round(sentiment_sum_7d / nullif(sentiment_n_7d, 0), 2) as sentiment_avg_7d,
  cast(position_n_7d as bigint) as position_n_7d,
  cast(sentiment_n_7d as bigint) as sentiment_n_7d,
  responses_prev_7d,
  mentions_prev_7d,
  round(100 * q7, 2) as visibility_prev_7d_pct,
  round(100 * wow, 2) as wow_delta_pp,
  round(100 * wow_lo, 2) as wow_ci_low_pp,
  round(100 * wow_hi, 2) as wow_ci_high_pp,
  wow_disc as wow_significant,
  coalesce(round(100 * wow_lo, 2) > 0 or round(100 * wow_hi, 2) < 0, false) as wow_ci_excludes_zero,
  measurement_change_wow,
  wow_prompts_left_out,
  cast(pn7 as bigint) as wow_panel_responses,
  cast(pn_prev7 as bigint) as wow_panel_prev_responses,
  round(100 * wow_mix, 2) as wow_prompt_mix_pp,
  wow_p as wow_p_value,
  wow_alert_open as wow_alert,
  round(100 * wow_mde, 2) as wow_mde_pp,
  responses_28d,
  mentions_28d,
  round(100 * p28, 2) as visibility_28d_pct,
  round(100 * p28_lo, 2) as visibility_28d_ci_low_pct,
  round(100 * p28_hi, 2) as visibility_28d_ci_high_pct,
  round(position_sum_28d / nullif(position_n_28d, 0), 2) as avg_position_28d,
  round(sentiment_sum_28d / nullif(sentiment_n_28d, 0), 2) as sentiment_avg_28d,
  cast(position_n_28d as bigint) as position_n_28d,
  cast(sentiment_n_28d as bigint) as sentiment_n_28d,
  responses_prev_28d,
  mentions_prev_28d,
  round(100 * q28, 2) as visibility_prev_28d_pct,
  round(100 * mom, 2) as mom_delta_pp,
  round(100 * mom_lo, 2) as mom_ci_low_pp,
  round(100 * mom_hi, 2) as mom_ci_high_pp,
  mom_disc as mom_significant,
  coalesce(round(100 * mom_lo, 2) > 0 or round(100 * mom_hi, 2) < 0, false) as mom_ci_excludes_zero,
  measurement_change_mom,
  mom_prompts_left_out,
  cast(pn28 as bigint) as mom_panel_responses,
  cast(pn_prev28 as bigint) as mom_panel_prev_responses,
  round(100 * mom_mix, 2) as mom_prompt_mix_pp,
  mom_p as mom_p_value,
  mom_alert_open as mom_alert,
  round(100 * mom_mde, 2) as mom_mde_pp
from episodes
where date between @start_date and @end_date
  -- not a partial day, and some window of the row holds answers of the series (the 56 days ending on it)
  and not is_partial
  and answer_days_56d > 0
