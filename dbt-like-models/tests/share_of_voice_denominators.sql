/* @test
description: >
  marts.share_of_voice_daily: per project, provider and day, the tracked brands' tracked_brand_responses add up to
  tracked_mentions_total and every brand's brand_responses add up to all_mentions_total. Returns the days that do not.
*/
select
  project_id,
  provider,
  date,
  sum(tracked_brand_responses) filter (where is_tracked) as tracked_sum,
  any_value(tracked_mentions_total) as tracked_total,
  sum(brand_responses) as all_sum,
  any_value(all_mentions_total) as all_total
from marts.share_of_voice_daily
group by team_id, project_id, provider, date
having sum(tracked_brand_responses) filter (where is_tracked) <> any_value(tracked_mentions_total)
  or sum(brand_responses) <> any_value(all_mentions_total)
