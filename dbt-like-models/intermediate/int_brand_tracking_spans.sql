/* @model
kind: table
description: >
  The days each tracked brand is counted on in marts.brand_visibility_daily. A competitor's span starts on the first
  day it was reported as a tracked mention (the API exposes no date a competitor was added; before that day it could
  not be counted) and, for a competitor no longer on the active list, ends on its last such day; the own brand's
  starts on the project's first day with answers. It reads every day, so it is kept out of the daily mart, which is
  cut by day and reads this table like the brand list: when a span moves (a competitor named for the first time, a
  dropped one named again), the mart is rebuilt in full instead of keeping old days counted on the old span.
grain: one row per team, project and tracked brand
columns:
  brand_id: staging.tracked_brands.brand_id
  brand_name: the brand's current name
  is_own_brand: the project's own brand
  tracked_from: first day the brand is counted on
  tracked_to: last day it is counted on; null while it is tracked (own brand, competitor on the active list)
audits:
  - not_null: [team_id, project_id, brand_id, brand_name, is_own_brand, tracked_from]
  - unique: [team_id, project_id, brand_id]
  - expression: {sql: "tracked_to is null or tracked_to >= tracked_from", name: span_not_reversed}
*/
with project_days as (
  select team_id, project_id, min(date) as first_day
  from intermediate.int_chats_by_provider
  group by team_id, project_id
),
mention_days as (
  select team_id, project_id, brand_id, min(chat_date) as first_day, max(chat_date) as last_day
  from intermediate.int_brand_mentions_per_chat
  group by team_id, project_id, brand_id
)
select
  brands.team_id,
  brands.project_id,
  brands.brand_id,
  brands.brand_name,
  brands.is_own_brand,
  case when brands.is_own_brand then project_days.first_day
       else coalesce(mention_days.first_day, project_days.first_day) end as tracked_from,
  case when brands.is_current then null else mention_days.last_day end as tracked_to
from staging.tracked_brands as brands
join project_days on project_days.team_id = brands.team_id and project_days.project_id = brands.project_id
left join mention_days
  on mention_days.team_id = brands.team_id
  and mention_days.project_id = brands.project_id
  and mention_days.brand_id = brands.brand_id
