/* @model
kind: table
description: >
  Where a tracked competitor is visible and the brand is not: per project, prompt, provider (and `all`) and
  competitor, over the 28 days ending on the project's last complete day. A gap answer names the competitor and
  not the own brand. Only rows with at least one gap answer are kept. brand_absent marks the hard gaps: the
  competitor is named and the brand never is, on that prompt and provider.
grain: one row per team, project, prompt, provider (and `all`) and competitor with at least one gap answer
columns:
  team_id: the config's team
  project_id: project
  prompt_id: prompt
  prompt_content: the prompt's current text
  provider: "AI provider id, or `all`"
  competitor_id: the tracked competitor's id (answers are grouped by it, so a renamed competitor stays one row)
  competitor_name: tracked competitor (current name)
  window_from: first day of the 28-day window
  window_to: last day of the window
  responses: answers to the prompt (on that provider) in the window
  competitor_mentions: answers naming the competitor
  brand_mentions: answers naming the own brand
  gap_responses: answers naming the competitor and not the own brand
  competitor_visibility_pct: 100 × competitor_mentions / responses
  competitor_visibility_ci_low_pct: Wilson 95% lower bound of competitor_visibility_pct (n = responses), percent
  competitor_visibility_ci_high_pct: Wilson 95% upper bound, percent
  brand_visibility_pct: 100 × brand_mentions / responses
  brand_visibility_ci_low_pct: Wilson 95% lower bound of brand_visibility_pct (n = responses), percent
  brand_visibility_ci_high_pct: Wilson 95% upper bound, percent
  visibility_gap_pp: "competitor_visibility_pct − brand_visibility_pct, percentage points (negative when the brand leads overall); no interval: both shares come from the same answers, read the two intervals"
  gap_share_pct: 100 × gap_responses / responses
  gap_share_ci_low_pct: Wilson 95% lower bound of gap_share_pct (n = responses), percent
  gap_share_ci_high_pct: Wilson 95% upper bound, percent
  competitor_avg_position: mean rank of the competitor in the gap answers (its n is gap_responses, the competitor being named, so ranked, in each)
  brand_absent: the brand is named in none of the answers (brand_mentions = 0)
audits:
  - unique: [team_id, project_id, prompt_id, provider, competitor_id]
  - not_null: [team_id, project_id, prompt_id, provider, competitor_name, responses, gap_responses]
  - expression: {sql: "gap_responses between 1 and competitor_mentions", name: gap_within_competitor_mentions}
  - expression: {sql: "competitor_mentions <= responses and brand_mentions <= responses", name: mentions_within_responses}
  - expression: {sql: "gap_responses <= responses - brand_mentions", name: gap_excludes_brand_answers}
*/
with answers as (
  select c.team_id, c.project_id, c.prompt_id, c.provider, c.brand_mentioned
  from intermediate.int_opportunity_chats as c
  join intermediate.int_opportunity_windows as w
    on w.team_id = c.team_id and w.project_id = c.project_id and c.chat_date between w.window_from and w.window_to
),
per_prompt as (
  select
    team_id,
    project_id,
    prompt_id,
    case when grouping(provider) = 1 then 'all' else provider end as provider,
    count(*) as responses,
    count(*) filter (where brand_mentioned) as brand_mentions
  from answers
  group by grouping sets ((team_id, project_id, prompt_id, provider), (team_id, project_id, prompt_id))
),
per_competitor as (
  select
    cc.team_id,
    cc.project_id,
    cc.prompt_id,
    case when grouping(cc.provider) = 1 then 'all' else cc.provider end as provider,
    cc.competitor_id,
    min(cc.competitor_name) as competitor_name,
    count(*) as competitor_mentions,
    count(*) filter (where not cc.brand_mentioned) as gap_responses,
    avg(cc.competitor_position) filter (where not cc.brand_mentioned) as competitor_avg_position
  from intermediate.int_chat_competitors as cc
  join intermediate.int_opportunity_windows as w
    on w.team_id = cc.team_id and w.project_id = cc.project_id and cc.chat_date between w.window_from and w.window_to
  group by grouping sets (
    (cc.team_id, cc.project_id, cc.prompt_id, cc.provider, cc.competitor_id),
    (cc.team_id, cc.project_id, cc.prompt_id, cc.competitor_id)
  )
)
select
  c.team_id,
  c.project_id,
  c.prompt_id,
  p.prompt_content,
  c.provider,
  c.competitor_id,
  c.competitor_name,
  w.window_from,
  w.window_to,
  pp.responses,
  c.competitor_mentions,
  pp.brand_mentions,
  c.gap_responses,
  100 * c.competitor_mentions / pp.responses as competitor_visibility_pct,
  100 * wilson_low(c.competitor_mentions, pp.responses) as competitor_visibility_ci_low_pct,
  100 * wilson_high(c.competitor_mentions, pp.responses) as competitor_visibility_ci_high_pct,
  100 * pp.brand_mentions / pp.responses as brand_visibility_pct,
  100 * wilson_low(pp.brand_mentions, pp.responses) as brand_visibility_ci_low_pct,
  100 * wilson_high(pp.brand_mentions, pp.responses) as brand_visibility_ci_high_pct,
  100 * (c.competitor_mentions - pp.brand_mentions) / pp.responses as visibility_gap_pp,
  100 * c.gap_responses / pp.responses as gap_share_pct,
  100 * wilson_low(c.gap_responses, pp.responses) as gap_share_ci_low_pct,
  100 * wilson_high(c.gap_responses, pp.responses) as gap_share_ci_high_pct,
  c.competitor_avg_position,
  pp.brand_mentions = 0 as brand_absent
from per_competitor as c
join per_prompt as pp using (team_id, project_id, prompt_id, provider)
join intermediate.int_opportunity_windows as w on w.team_id = c.team_id and w.project_id = c.project_id
left join staging.prompts as p
  on p.team_id = c.team_id and p.project_id = c.project_id and p.prompt_id = c.prompt_id
where c.gap_responses > 0
