/* @test
description: >
  The own brand's daily responses and mentions in marts.brand_visibility_daily equal a direct count of
  staging.chats (mentioned = the own brand is in the answer), per provider and for all providers pooled.
  Returns the project-provider-days that differ or exist on one side only.
*/
with recomputed as (
  select
    team_id,
    project_id,
    coalesce(provider, 'all') as provider,
    chat_date as date,
    count(*) as responses,
    count(*) filter (where mentioned) as mentions
  from staging.chats
  group by grouping sets ((team_id, project_id, provider, chat_date), (team_id, project_id, chat_date))
),
mart as (
  select team_id, project_id, provider, date, responses, mentions
  from marts.brand_visibility_daily
  where is_own_brand
)
select
  coalesce(recomputed.project_id, mart.project_id) as project_id,
  coalesce(recomputed.provider, mart.provider) as provider,
  coalesce(recomputed.date, mart.date) as date,
  recomputed.responses as responses_recomputed,
  mart.responses as responses_mart,
  recomputed.mentions as mentions_recomputed,
  mart.mentions as mentions_mart
from recomputed
full join mart
  on mart.team_id = recomputed.team_id
  and mart.project_id = recomputed.project_id
  and mart.provider = recomputed.provider
  and mart.date = recomputed.date
where recomputed.responses is distinct from mart.responses or recomputed.mentions is distinct from mart.mentions
