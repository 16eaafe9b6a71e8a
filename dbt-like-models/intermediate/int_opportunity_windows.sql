/* @model
kind: ephemeral
description: >
  The window the opportunity marts (competitor_gaps, prompt_opportunities) measure over: the 28 days ending on the
  project's newest answer day, so both marts always describe the same answers.
grain: one row per team and project
columns:
  project_id: the project
  window_from: first day of the window (newest answer day - 27)
  window_to: the project's newest answer day
*/
select team_id, project_id, max(chat_date) - 27 as window_from, max(chat_date) as window_to
from intermediate.int_opportunity_chats
group by team_id, project_id
