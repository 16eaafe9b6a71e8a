/**
 * The binomial floor of marts.action_impact's intervals (issue 25): the half-width a perfect method would have from
 * the same answer counts alone — no drift, no between-prompt spread, a normal 1.96 — computed from the warehouse
 * independently of the model, over the mart's own windows:
 *
 * - a prompt's change d over the windows has the binomial variance v = p(1 − p)(1/n_before + 1/n_after), p its
 *   level over both windows smoothed to (x + 1) / (n + 2) (the mart's convention);
 * - treated side: every targeted prompt answered in both windows, combined with inverse-variance weights (the
 *   least variance of any weighted mean of the prompts' changes): V_T = 1 / Σ 1/v;
 * - control side, `did_prompts`: every untargeted prompt of the project answered in both windows, the same way
 *   (V_C = 1 / Σ 1/v, whatever the strata or topic cells keep); `placebo_brands`: each competitor tracked through
 *   both windows (as the mart takes them) on the treated answers, V_b = 1 / Σ 1/v per brand, and the mean of K
 *   brands: V_C = mean(V_b) / K;
 * - floor = 1.959964 · √(V_T + V_C).
 *
 * Used by test/analytics/truth.test.ts and quoted in docs/lab/2026-11-action-impact.md.
 */
import type { Database } from '../../src/warehouse/duckdb.js';

const FLOOR_SQL = `
with a as (
  select team_id, action_id, project_id, method, before_from, before_to, after_from, after_to
  from marts.action_impact
  where effect_pp is not null
),
answers as (
  select
    a.team_id, a.action_id, a.method, ch.chat_id, ch.chat_date, ch.prompt_id, ch.brand_mentioned,
    ch.chat_date >= a.after_from as is_after,
    t.prompt_id is not null as is_treated
  from a
  join intermediate.int_opportunity_chats as ch
    on ch.team_id = a.team_id and ch.project_id = a.project_id
    and (ch.chat_date between a.before_from and a.before_to or ch.chat_date between a.after_from and a.after_to)
  left join intermediate.int_action_targets as t
    on t.team_id = a.team_id and t.action_id = a.action_id and t.prompt_id = ch.prompt_id
),
own as (
  -- Per prompt, the own brand: treated prompts always, untargeted ones as did_prompts controls.
  select
    team_id, action_id, is_treated, prompt_id,
    count(*) filter (where not is_after) as nb, count(*) filter (where is_after) as na,
    count(*) filter (where brand_mentioned) as x, count(*) as n
  from answers
  where is_treated or method = 'did_prompts'
  group by all
),
own_v as (
  select team_id, action_id, is_treated,
    1 / sum(1 / (10000 * (x + 1) / (n + 2) * (1 - (x + 1) / (n + 2)) * (1 / nb + 1 / na))) as v
  from own
  where nb > 0 and na > 0
  group by all
),
treated_answers as (
  select an.* from answers as an join own as o
    on o.team_id = an.team_id and o.action_id = an.action_id and o.prompt_id = an.prompt_id
  where an.is_treated and o.nb > 0 and o.na > 0
),
span as (
  select team_id, action_id, min(chat_date) as first_day, max(chat_date) as last_day
  from treated_answers group by all
),
competitors as (
  select s.team_id, s.action_id, m.brand_id
  from span as s
  join a on a.team_id = s.team_id and a.action_id = s.action_id and a.method = 'placebo_brands'
  join intermediate.int_brand_mentions_per_chat as m on m.team_id = a.team_id and m.project_id = a.project_id
  where not m.is_own_brand
  group by s.team_id, s.action_id, m.brand_id, s.first_day, s.last_day
  having min(m.chat_date) <= s.first_day and max(m.chat_date) >= s.last_day
),
competitor_prompts as (
  select c.team_id, c.action_id, c.brand_id, ta.prompt_id,
    count(*) filter (where not ta.is_after) as nb, count(*) filter (where ta.is_after) as na,
    count(m.chat_id) as x, count(*) as n
  from competitors as c
  join treated_answers as ta on ta.team_id = c.team_id and ta.action_id = c.action_id
  left join intermediate.int_brand_mentions_per_chat as m
    on m.team_id = ta.team_id and m.chat_id = ta.chat_id and m.brand_id = c.brand_id
  group by all
),
competitor_v as (
  select team_id, action_id, avg(v) / count(*) as v
  from (
    select team_id, action_id, brand_id,
      1 / sum(1 / (10000 * (x + 1) / (n + 2) * (1 - (x + 1) / (n + 2)) * (1 / nb + 1 / na))) as v
    from competitor_prompts group by all
  )
  group by all
)
select a.team_id, a.action_id, a.method,
  1.959964 * sqrt(t.v + coalesce(c.v, cp.v)) as floor_pp
from a
join own_v as t on t.team_id = a.team_id and t.action_id = a.action_id and t.is_treated
left join own_v as c on c.team_id = a.team_id and c.action_id = a.action_id and not c.is_treated
  and a.method = 'did_prompts'
left join competitor_v as cp on cp.team_id = a.team_id and cp.action_id = a.action_id
  and a.method = 'placebo_brands'
`;

/** The binomial floor of each measured action's 95% half-width (points), by team and action. */
export async function impactFloors(db: Database): Promise<Map<string, number>> {
  const rows = await db.session.all<{ team_id: string; action_id: string; floor_pp: number | null }>(FLOOR_SQL);
  const out = new Map<string, number>();
  for (const r of rows) if (r.floor_pp !== null) out.set(`${r.team_id}/${r.action_id}`, Number(r.floor_pp));
  return out;
}
