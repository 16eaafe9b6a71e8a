/* @model
kind: table
description: |
  Changes in what is measured, as data: days on which a figure moves because the measurement changed, not the
  brand's standing. Marts flag the rows whose window holds one (brand_visibility_daily.measurement_change,
  brand_visibility_trend.measurement_change_wow/mom) and alerts skip them.

  - `prompt_started` / `prompt_stopped`: a prompt's first day with answers after the project's first day, and the
    day after its last day with answers when that is before the project's last complete day (every brand's
    denominator changes: brand_id null). From the answers, so exact to the day.
  - `competitor_tracked`: a tracked competitor's first day with a tracked mention after the project's first day
    (its series starts; the API gives no date a competitor was added, so this is the first day it can be counted).
  - `competitor_dropped`: the day after a competitor's last tracked mention when it is no longer on the newest
    active list.
  - `alias_added` / `alias_removed`: an alias first listed by a sync after the project's first sync (and after the
    first build of snapshots.project_aliases_history), dated by that sync's day, or no longer listed (dated by the
    build that found it gone). The API gives aliases no date and each sync replaces raw.project_aliases, so the day
    an alias is first seen is kept by the snapshot; with daily syncs and builds the date is exact to a day. Aliases
    present at the first sync (or the snapshot's first build) have an unknown date and are no event.
grain: one row per team, project, day, kind and subject
columns:
  date: first day whose figures the change moves
  kind: prompt_started | prompt_stopped | competitor_tracked | competitor_dropped | alias_added | alias_removed
  brand_id: the brand whose figures move (null = every brand of the project)
  subject: the prompt id, competitor id or alias name
audits:
  - not_null: [team_id, project_id, date, kind, subject]
  - unique: [team_id, project_id, date, kind, subject]
  - accepted_values: {column: kind, values: [prompt_started, prompt_stopped, competitor_tracked, competitor_dropped, alias_added, alias_removed]}
*/
with project_days as (
  select team_id, project_id, min(date) as first_day, max(date) filter (where is_complete) as last_complete_day
  from intermediate.int_day_completeness
  group by all
),
prompt_days as (
  select team_id, project_id, prompt_id, min(chat_date) as first_day, max(chat_date) as last_day
  from staging.chats
  group by all
),
competitor_days as (
  select team_id, project_id, brand_id, min(chat_date) as first_day, max(chat_date) as last_day
  from intermediate.int_brand_mentions_per_chat
  where not is_own_brand
  group by all
),
alias_syncs as (
  -- The day each alias was first listed, and the day it was found gone (null while listed).
  select
    team_id, project_id, alias_name,
    cast(min(valid_from) as date) as first_seen,
    case when count(valid_to) = count(*) then cast(max(valid_to) as date) end as gone_on
  from snapshots.project_aliases_history
  group by all
),
history_start as (
  -- The first build of the alias history: aliases listed then have no known date.
  select team_id, cast(min(valid_from) as date) as first_built
  from snapshots.project_aliases_history
  group by all
),
project_syncs as (
  -- Each project's first sync day (the prompt list is kept per sync day).
  select team_id, project_id, min(snapshot_date) as first_sync
  from staging.prompt_state_daily
  group by all
),
own as (
  select team_id, project_id, brand_id from staging.tracked_brands where is_own_brand
)
select p.team_id, p.project_id, p.first_day as date, 'prompt_started' as kind, null as brand_id, p.prompt_id as subject
from prompt_days as p
join project_days as d on d.team_id = p.team_id and d.project_id = p.project_id
where p.first_day > d.first_day
union all
select p.team_id, p.project_id, p.last_day + 1, 'prompt_stopped', null, p.prompt_id
from prompt_days as p
join project_days as d on d.team_id = p.team_id and d.project_id = p.project_id
where p.last_day + 1 <= d.last_complete_day
union all
select c.team_id, c.project_id, c.first_day, 'competitor_tracked', c.brand_id, c.brand_id
from competitor_days as c
join project_days as d on d.team_id = c.team_id and d.project_id = c.project_id
where c.first_day > d.first_day
union all
select c.team_id, c.project_id, c.last_day + 1, 'competitor_dropped', c.brand_id, c.brand_id
from competitor_days as c
join project_days as d on d.team_id = c.team_id and d.project_id = c.project_id
join staging.tracked_brands as t on t.team_id = c.team_id and t.project_id = c.project_id and t.brand_id = c.brand_id
where not t.is_current and c.last_day + 1 <= d.last_complete_day
union all
select a.team_id, a.project_id, a.first_seen, 'alias_added', o.brand_id, a.alias_name
from alias_syncs as a
join project_syncs as s on s.team_id = a.team_id and s.project_id = a.project_id
join history_start as h on h.team_id = a.team_id
left join own as o on o.team_id = a.team_id and o.project_id = a.project_id
where a.first_seen > s.first_sync and a.first_seen > h.first_built
union all
select a.team_id, a.project_id, a.gone_on, 'alias_removed', o.brand_id, a.alias_name
from alias_syncs as a
left join own as o on o.team_id = a.team_id and o.project_id = a.project_id
where a.gone_on is not null
