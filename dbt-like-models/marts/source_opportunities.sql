/* @model
kind: table
description: |
  Domains worth earning a place on, per project, over the project's latest analysis window (the window of the
  newest `sources/analytics` the sync landed, so the API's own opportunity list covers the same days, partial days
  included as in the API's counts; the 30 days ending on the project's last complete day when none was landed).
  All providers pooled.

  `opportunity_score = 100 × raw / the project's highest raw`, `raw = reach × (0.25 + 0.75 × gap_share_shrunk) ×
  category_weight` (the factors as fractions of 1; the columns give them in percent): 0–100, the project's best
  domain 100, so the range the column states is the one it takes on every world.

  - `reach` = Wilson 95% lower bound of citing_responses / responses (z = 1.96): how often AI answers cite the
    domain, discounted for small samples.
  - `gap_share` = competitor_only_responses / citing_responses: how often the citing answers name a tracked
    competitor but not the brand. `gap_share_shrunk` is it shrunk toward the project's share over its cited
    third-party domains by its reliability B = tau2 / (tau2 + v) (empirical Bayes: v its binomial variance, tau2
    the domains' spread beyond sampling). A domain whose answers leave the brand out more than the project's do
    scores higher, by as much as the data show it; where the spread is sampling noise (tau2 = 0: so far in every
    reference world, whose citations do not depend on the brands an answer names) every domain gets the project's
    share and the ranking is reach × category weight.
  - `competitor_density` (not in the score: its spread across domains is a few hundredths, no signal) = competitor_mentions / (citing_responses × competitors_in_window): the share of the
    project's competitors an answer citing the domain names, on average (how many competitors appear there; the
    distinct count is no signal, since over a month nearly every competitor appears next to every popular domain).
  - `category_weight` = how reachable a place on that kind of site is for the brand: editorial 1.0 (reviews and
    lists can be pitched), ugc 0.9 (forums the brand can take part in), reference 0.7, other 0.6,
    institutional 0.5, corporate 0.3 (a competitor's own site).

  Each factor is in [0, 1], so raw is too and grows with each of the three; it rarely passes 0.2 (a domain every
  answer cites, every citing answer leaving the brand out, editorial, would be 1), so a score of raw × 100 labelled
  0–100 topped out near 17 (issue 54): scaled to the project's best, 100 is a domain to start with and 50 one
  worth half as much. The own website and the tracked competitors' own websites (`is_competitor_domain`: the domain, or a
  subdomain of it, of a competitor's `website` in staging.competitors) get no score and are no opportunity: the
  brand cannot earn a place on a rival's site. Nor do they count in the project's gap share. When the gap term does not move (tau2 = 0: every domain's gap_share_shrunk is the project's share g),
  raw is (0.25 + 0.75 g) × reach × category_weight: a constant times reach × category weight, so the
  ranking is by how often AI cites the domain and the kind of site, nothing more.

  `is_opportunity` (the list to work through) is a threshold on the gap, not on reach: not the own website, cited
  without the brand at least 3 times (the API's rule), not a competitor's website, and the 95% lower bound of its
  gap share above the project's gap share (project_gap_share_pct, over its cited third-party domains): answers citing
  the domain leave the brand out for a competitor more often than the project's answers do, beyond sampling noise.
  On the reference worlds 0–10% of a project's domains pass (the API's rule alone passed 117 of 118).
  `addressed_by_action_id` marks a domain a completed action already targeted (a domain target of staging.actions):
  worked on already, it stays listed with its measured gap.

  The API's rule ("cited 3 or more times in answers where the brand is not mentioned", own website excluded) is
  recomputed from the answers (meets_api_rule, unbranded_citations) and set against the API's list for the same
  window (api_listed, api_citation_count): they must agree (the agrees_with_api audit). Where they differ by
  design: the API counts citations and ranks by that count, whatever the category or the competitors; the score
  counts answers, discounts small samples, weighs the gap and the category, and scores domains below the
  threshold too (is_opportunity follows the API's rule).
grain: one row per team, project and domain cited in the window (plus domains only the API lists)
columns:
  team_id: the config's team
  project_id: project
  window_from: first day of the analysis window
  window_to: "last day of the analysis window; the counts cover its days up to the build's last day (when api_window_modelled is false, the API's last day is not counted yet)"
  domain: cited domain, as the API names it
  category: "0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other"
  category_name: name of the category
  is_own_domain: the project's own website (never an opportunity)
  is_competitor_domain: a tracked competitor's own website (its domain or a subdomain; never an opportunity, no score)
  responses: answers of the project in the window
  citing_responses: answers citing the domain
  citations: references to the domain
  citing_share_pct: 100 × citing_responses / responses
  reach_pct: Wilson 95% lower bound of citing_share_pct, percent
  citing_share_ci_high_pct: Wilson 95% upper bound of citing_share_pct, percent (reach_pct is the lower)
  brand_mentioned_responses: citing answers naming the own brand
  competitor_only_responses: citing answers naming a tracked competitor and not the brand
  gap_share_pct: 100 × competitor_only_responses / citing_responses
  gap_share_ci_low_pct: Wilson 95% lower bound of gap_share_pct (n = citing_responses), percent
  gap_share_ci_high_pct: Wilson 95% upper bound of gap_share_pct, percent
  gap_share_shrunk_pct: gap_share_pct shrunk toward the project's share by its reliability (the score's gap term)
  competitors_present: distinct tracked competitors (by id) in the citing answers
  competitor_mentions: tracked competitors named, summed over the citing answers
  competitors_in_window: distinct tracked competitors in all the project's answers of the window
  competitor_density_pct: 100 × competitor_mentions / (citing_responses × competitors_in_window) (0 when none seen)
  category_weight: documented weight of the category (above)
  opportunity_score: "0–100, 100 = the project's best domain (raw / the project's highest raw), rounded to 4 decimals; null for the own website and the competitors' websites"
  score_rank: "1 = the first domain to work on: the opportunities (is_opportunity) by score, then the other scored domains by score, then the own and competitors' websites"
  unbranded_citations: citations in answers not naming the brand (the API's citation_count)
  meets_api_rule: not the own website and unbranded_citations >= 3
  api_listed: the API's opportunities list of this window has the domain (null when no window was landed)
  api_citation_count: the API's citation_count for the domain (null when not listed)
  api_window_modelled: every answer the API's window counted is in the build (false when the sync landed answers of days after the build's last day inside it, e.g. today's on-time answers on a run during the day; null without an API window)
  agrees_with_api: meets_api_rule = api_listed and the counts are equal when listed (null without an API window, or when api_window_modelled is false)
  project_gap_share_pct: the project's gap share over its cited third-party domains, neither its own nor a competitor's website (100 × Σ competitor_only_responses / Σ citing_responses)
  is_opportunity: meets_api_rule, not a competitor's website, and gap_share_ci_low_pct > project_gap_share_pct (the gap is larger than the project's, beyond sampling)
  addressed_by_action_id: a completed action of the project that targets this domain (the newest completed), null when none
  addressed_by_action: that action's title
audits:
  - unique: [team_id, project_id, domain]
  - not_null: [team_id, project_id, window_from, window_to, domain, category, responses, citing_responses, is_opportunity]
  - expression: {sql: "opportunity_score between 0 and 100 or is_own_domain or is_competitor_domain", name: score_in_range}
  - expression: {sql: "not (is_competitor_domain and is_opportunity)", name: competitor_domain_never_opportunity}
  - expression: {sql: "reach_pct <= citing_share_pct + 1e-10", name: reach_below_share}
  - expression: {sql: "competitor_density_pct between 0 and 100 and gap_share_pct between 0 and 100", name: factors_in_range}
  - expression: {sql: "not (is_own_domain and is_opportunity)", name: own_domain_never_opportunity}
  - expression: {sql: "not is_opportunity or (meets_api_rule and gap_share_ci_low_pct > project_gap_share_pct)", name: opportunity_is_a_gap}
  - expression: {sql: "agrees_with_api is not false", name: agrees_with_api, severity: warn}
*/
with api_windows as (
  select team_id, project_id, max(window_to) as window_to, arg_max(window_from, window_to) as window_from
  from staging.source_stats
  group by team_id, project_id
),
unmodelled as (
  -- Answers the sync landed inside the API's window on days after the build's last day: the API counted them, the
  -- marts cannot (a run during the day lands today's on-time answers while the build stops at yesterday).
  select w.team_id, w.project_id, sum(d.answers) as answers
  from api_windows as w
  join staging.chat_days as d
    on d.team_id = w.team_id and d.project_id = w.project_id
    and d.chat_date > @end_date and d.chat_date between w.window_from and w.window_to
  group by w.team_id, w.project_id
),
windows as (
  -- The API's latest window; else the 30 days ending on the project's last complete day (where the other
  -- opportunity marts' window ends).
  select
    c.team_id,
    c.project_id,
    coalesce(w.window_from, ow.window_to - 29) as window_from,
    coalesce(w.window_to, ow.window_to) as window_to,
    w.project_id is not null as has_api_window,
    case when w.project_id is not null then u.answers is null end as api_window_modelled
  from (select distinct team_id, project_id from intermediate.int_opportunity_chats) as c
  left join api_windows as w on w.team_id = c.team_id and w.project_id = c.project_id
  left join intermediate.int_opportunity_windows as ow on ow.team_id = c.team_id and ow.project_id = c.project_id
  left join unmodelled as u on u.team_id = c.team_id and u.project_id = c.project_id
),
responses as (
  select w.team_id, w.project_id, count(c.chat_id) as responses
  from windows as w
  left join intermediate.int_opportunity_chats as c
    on c.team_id = w.team_id and c.project_id = w.project_id and c.chat_date between w.window_from and w.window_to
  group by w.team_id, w.project_id
),
competitors_in_window as (
  select w.team_id, w.project_id, count(distinct cc.competitor_id) as competitors_in_window
  from windows as w
  left join intermediate.int_chat_competitors as cc
    on cc.team_id = w.team_id and cc.project_id = w.project_id and cc.chat_date between w.window_from and w.window_to
  group by w.team_id, w.project_id
),
citing as (
  select d.*
  from intermediate.int_chat_domains as d
  join windows as w
    on w.team_id = d.team_id and w.project_id = d.project_id and d.chat_date between w.window_from and w.window_to
),
per_domain as (
  select
    team_id,
    project_id,
    domain,
    any_value(category) as category,
    bool_or(is_own_domain) as is_own_domain,
    count(*) as citing_responses,
    sum(citations)::bigint as citations,
    count(*) filter (where brand_mentioned) as brand_mentioned_responses,
    count(*) filter (where competitors_named > 0 and not brand_mentioned) as competitor_only_responses,
    sum(competitors_named)::bigint as competitor_mentions,
    coalesce(sum(citations) filter (where not brand_mentioned), 0)::bigint as unbranded_citations
  from citing
  group by team_id, project_id, domain
),
window_competitors as (
  -- The competitor rows of the windows' answers, found through the small windows table first: matched on the chat
  -- alone, every competitor row of the year probed a hash table of the citing answers (at 10 × an agency, 6.7 s of a
  -- night's build).
  select cc.team_id, cc.chat_id, cc.competitor_id
  from intermediate.int_chat_competitors as cc
  join windows as w
    on w.team_id = cc.team_id and w.project_id = cc.project_id and cc.chat_date between w.window_from and w.window_to
),
competitors_per_domain as (
  select ci.team_id, ci.project_id, ci.domain, count(distinct cc.competitor_id) as competitors_present
  from citing as ci
  join window_competitors as cc on cc.team_id = ci.team_id and cc.chat_id = ci.chat_id
  group by ci.team_id, ci.project_id, ci.domain
),
api_list as (
  select o.team_id, o.project_id, lower(o.domain) as domain, max(o.citation_count) as api_citation_count,
    max(o.category) as api_category
  from staging.source_opportunities as o
  join windows as w
    on w.team_id = o.team_id and w.project_id = o.project_id
    and o.window_from = w.window_from and o.window_to = w.window_to
  group by all
),
competitor_domains as (
  -- The tracked competitors' own websites (any list and window the sync landed), as the API names domains.
  select distinct team_id, project_id, website_domain as domain
  from staging.competitors
  where website_domain is not null and website_domain <> '' and not coalesce(is_own_brand, false)
),
domains as (
  select team_id, project_id, domain from per_domain
  union
  select team_id, project_id, domain from api_list
),
measured as (
  select
    d.team_id,
    d.project_id,
    d.domain,
    coalesce(p.category, a.api_category, k.category, 5) as category,
    coalesce(p.is_own_domain, k.is_own_domain, false) as is_own_domain,
    exists (
      select 1 from competitor_domains as cd
      where cd.team_id = d.team_id and cd.project_id = d.project_id
        and (d.domain = cd.domain or d.domain like '%.' || cd.domain)
    ) and not coalesce(p.is_own_domain, k.is_own_domain, false) as is_competitor_domain,
    r.responses,
    coalesce(p.citing_responses, 0) as citing_responses,
    coalesce(p.citations, 0) as citations,
    coalesce(p.brand_mentioned_responses, 0) as brand_mentioned_responses,
    coalesce(p.competitor_only_responses, 0) as competitor_only_responses,
    coalesce(p.unbranded_citations, 0) as unbranded_citations,
    coalesce(cp.competitors_present, 0) as competitors_present,
    coalesce(p.competitor_mentions, 0) as competitor_mentions,
    ciw.competitors_in_window,
    a.api_citation_count,
    a.domain is not null as in_api_list
  from domains as d
  join responses as r on r.team_id = d.team_id and r.project_id = d.project_id
  join competitors_in_window as ciw on ciw.team_id = d.team_id and ciw.project_id = d.project_id
  left join per_domain as p on p.team_id = d.team_id and p.project_id = d.project_id and p.domain = d.domain
  left join competitors_per_domain as cp
    on cp.team_id = d.team_id and cp.project_id = d.project_id and cp.domain = d.domain
  left join api_list as a on a.team_id = d.team_id and a.project_id = d.project_id and a.domain = d.domain
  left join intermediate.int_source_domain_catalog as k
    on k.team_id = d.team_id and k.project_id = d.project_id and k.domain = d.domain
),
factors as (
  select
    m.*,
    case when responses > 0 then citing_responses / responses end as citing_share,
    -- Wilson 95% lower bound of the citing share (macros/stats.sql)
    wilson_low(citing_responses, responses) as reach,
    case when citing_responses > 0 then competitor_only_responses / citing_responses else 0 end as gap_share,
    case when citing_responses > 0 and competitors_in_window > 0
      then competitor_mentions / (citing_responses * competitors_in_window) else 0
    end as competitor_density,
    case category
      when 1 then 1.0 when 4 then 0.9 when 3 then 0.7 when 5 then 0.6 when 2 then 0.5 when 0 then 0.3
    end as category_weight
  from measured as m
),
project_gap_share as (
  select team_id, project_id, sum(competitor_only_responses) / sum(citing_responses) as gap_project
  from factors
  where citing_responses > 0 and not is_own_domain and not is_competitor_domain
  group by team_id, project_id
),
project_gap as (
  -- How much the domains' gap shares differ beyond sampling: tau2 = max(0, variance of the domains' gap shares −
  -- their mean binomial variance at the project's share). Both are sums of doubles: ordered by domain, so the same
  -- rows give the same bits whatever order they landed in.
  select
    g.team_id,
    g.project_id,
    g.gap_project,
    greatest(
      0,
      var_pop(f.gap_share order by f.domain)
        - avg(g.gap_project * (1 - g.gap_project) / f.citing_responses order by f.domain)
    ) as tau2
  from project_gap_share as g
  join factors as f
    on f.team_id = g.team_id and f.project_id = g.project_id and f.citing_responses > 0 and not f.is_own_domain
    and not f.is_competitor_domain
  group by g.team_id, g.project_id, g.gap_project
),
shrunk as (
  -- Empirical Bayes: a domain's gap share counts by its reliability B = tau2 / (tau2 + v), v its binomial
  -- variance; with no difference beyond sampling (tau2 = 0), or no citing answer, a domain gets the project's
  -- share. The own website keeps its raw share (it is no opportunity and not part of the project's share).
  select
    f.*,
    case
      when f.is_own_domain or f.is_competitor_domain or g.gap_project is null then f.gap_share
      when f.citing_responses = 0 or g.tau2 = 0 then g.gap_project
      else g.gap_project
        + g.tau2 / (g.tau2 + g.gap_project * (1 - g.gap_project) / f.citing_responses) * (f.gap_share - g.gap_project)
    end as gap_share_shrunk
  from factors as f
  left join project_gap as g on g.team_id = f.team_id and g.project_id = f.project_id
),
listed as (
  -- The score's factors (each in [0, 1]) multiplied, and the threshold on the gap that makes a domain an
  -- opportunity. Own and competitors' websites get neither.
  select
    s.*,
    not s.is_own_domain and not s.is_competitor_domain as scored,
    coalesce(s.reach, 0) * (0.25 + 0.75 * s.gap_share_shrunk) * s.category_weight as raw_score,
    g.gap_project,
    not s.is_own_domain and not s.is_competitor_domain and s.unbranded_citations >= 3
      and coalesce(wilson_low(s.competitor_only_responses, s.citing_responses) > g.gap_project, false) as is_opportunity
  from shrunk as s
  left join project_gap_share as g on g.team_id = s.team_id and g.project_id = s.project_id
),
action_domains as (
  select team_id, project_id, action_id, title, completed_at, unnest(target_domains) as target_domain
  from staging.actions
  where status = 'completed'
),
addressed as (
  -- Completed actions that target a domain (as the API names domains: lower case, no leading www.): the newest per
  -- project and domain.
  select team_id, project_id, regexp_replace(lower(target_domain), '^www\.', '') as domain, action_id, title
  from action_domains
  qualify row_number() over (
    partition by team_id, project_id, regexp_replace(lower(target_domain), '^www\.', '')
    order by completed_at desc nulls last, action_id
  ) = 1
)
select
  f.team_id,
  f.project_id,
  w.window_from,
  w.window_to,
  f.domain,
  f.category,
  ['corporate', 'editorial', 'institutional', 'reference', 'ugc', 'other'][f.category + 1] as category_name,
  f.is_own_domain,
  f.is_competitor_domain,
  f.responses,
  f.citing_responses,
  f.citations,
  100 * f.citing_share as citing_share_pct,
  100 * f.reach as reach_pct,
  100 * wilson_high(f.citing_responses, f.responses) as citing_share_ci_high_pct,
  f.brand_mentioned_responses,
  f.competitor_only_responses,
  100 * f.gap_share as gap_share_pct,
  100 * wilson_low(f.competitor_only_responses, f.citing_responses) as gap_share_ci_low_pct,
  100 * wilson_high(f.competitor_only_responses, f.citing_responses) as gap_share_ci_high_pct,
  100 * f.gap_share_shrunk as gap_share_shrunk_pct,
  f.competitors_present,
  f.competitor_mentions,
  f.competitors_in_window,
  100 * f.competitor_density as competitor_density_pct,
  f.category_weight,
  -- rounded so that the best domain is 100 exactly (the division leaves it 99.99999999999999 on some worlds)
  case when f.scored then round(100 * f.raw_score / nullif(max(f.raw_score) filter (where f.scored) over project, 0), 4)
  end as opportunity_score,
  row_number() over (
    partition by f.team_id, f.project_id
    order by not f.scored, f.is_opportunity desc, f.raw_score desc, f.domain
  ) as score_rank,
  f.unbranded_citations,
  not f.is_own_domain and f.unbranded_citations >= 3 as meets_api_rule,
  case when w.has_api_window then f.in_api_list end as api_listed,
  f.api_citation_count,
  w.api_window_modelled,
  case when w.has_api_window and w.api_window_modelled then
    (not f.is_own_domain and f.unbranded_citations >= 3) = f.in_api_list
    and (not f.in_api_list or f.unbranded_citations = f.api_citation_count)
  end as agrees_with_api,
  100 * f.gap_project as project_gap_share_pct,
  f.is_opportunity,
  ad.action_id as addressed_by_action_id,
  ad.title as addressed_by_action
from listed as f
join windows as w on w.team_id = f.team_id and w.project_id = f.project_id
left join addressed as ad on ad.team_id = f.team_id and ad.project_id = f.project_id and ad.domain = f.domain
window project as (partition by f.team_id, f.project_id)
