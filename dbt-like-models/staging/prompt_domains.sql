/* @model
description: >
  Domains cited in a prompt's answers over an analysis window (the API's figures). One set per window; use
  is_latest_window for the newest. Carries the prompt's current text.
grain: one row per team, prompt, window and domain
columns:
  used_percentage: chats citing the domain / chats x 100 (API)
  mentioned: the own brand is in at least one chat citing it (API)
  brands_appeared: tracked brands in those chats, most frequent first (JSON, API)
  is_latest_window: the row belongs to the newest window synced for its project
audits:
  - not_null: [team_id, prompt_id, window_from, window_to, domain]
  - unique: [team_id, prompt_id, window_from, window_to, domain]
*/
with domains as (
  select *
  from raw.prompt_domains
  qualify row_number() over (
    partition by team_id, prompt_id, window_from, window_to, domain order by _extracted_at desc
  ) = 1
)
select
  domains.team_id,
  domains.project_id,
  domains.prompt_id,
  prompts.prompt_content,
  domains.window_from,
  domains.window_to,
  lower(domains.domain) as domain,
  domains.domain_type,
  domains.citation_count,
  domains.avg_citations,
  domains.used_percentage,
  domains.mentioned,
  domains.brands_appeared,
  domains.favicon_url,
  max(domains.window_to) over (partition by domains.team_id, domains.project_id) = domains.window_to
    as is_latest_window,
  domains._sync_run_id,
  domains._extracted_at
from domains
left join staging.prompts as prompts
  on prompts.team_id = domains.team_id and prompts.prompt_id = domains.prompt_id
