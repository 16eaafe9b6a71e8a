/* @model
kind: ephemeral
description: >
  The window the opportunity marts (competitor_gaps, prompt_opportunities) measure over: the 28 days ending on the
  project's last complete day (intermediate.int_day_completeness), so both marts always describe the same answers
  and a partial day (its late answers not in yet) never enters. A project without a complete day has no window
  yet, so no rows in those marts.
grain: one row per team and project
columns:
  project_id: the project
  window_from: first day of the window (window_to - 27)
  window_to: the project's last complete day
*/
select team_id, project_id, max(date) - 27 as window_from, max(date) as window_to
from intermediate.int_day_completeness
where is_complete
group by team_id, project_id
