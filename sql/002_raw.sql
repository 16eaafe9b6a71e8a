-- One table per stream. Columns: the API's fields in snake_case with their types, `team_id` first, then
-- `_extra` (unknown fields the API added, kept as JSON), `_sync_run_id` and `_extracted_at`.
-- Identifiers are VARCHAR (UUID text; webhook ids are prefixed strings). Window streams (an aggregate over
-- date_from..date_to) carry `window_from` / `window_to`: the window the request asked for.
CREATE SCHEMA IF NOT EXISTS raw;

-- GET /projects/{id} (single view, aliases filled). Grain: project, latest state.
CREATE TABLE IF NOT EXISTS raw.projects (
  team_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  brand_name VARCHAR,
  website_url VARCHAR,
  location VARCHAR,
  language VARCHAR,
  brand_aliases VARCHAR[] NOT NULL,
  created_at TIMESTAMP NOT NULL,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET /projects/{id}/aliases. Grain: project × alias, latest state.
CREATE TABLE IF NOT EXISTS raw.project_aliases (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  brand_name VARCHAR,
  name VARCHAR NOT NULL,
  match_type VARCHAR NOT NULL,
  alias_limit INTEGER,
  remaining INTEGER,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET /projects/{id}/prompts (every type). Grain: prompt, latest state; metrics over the API's default window.
CREATE TABLE IF NOT EXISTS raw.prompts (
  team_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  content VARCHAR NOT NULL,
  prompt_type VARCHAR NOT NULL,
  topic_id VARCHAR,
  country VARCHAR,
  visibility DOUBLE,
  sentiment BIGINT,
  position DOUBLE,
  volume BIGINT,
  cvr DOUBLE,
  intent VARCHAR,
  trend VARCHAR,
  created_at TIMESTAMP NOT NULL,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- The same list, kept once per UTC day of the sync: the history of type, visibility and trend.
-- Grain: snapshot_date × prompt.
CREATE TABLE IF NOT EXISTS raw.prompt_state_daily (
  team_id VARCHAR NOT NULL,
  snapshot_date DATE NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  content VARCHAR NOT NULL,
  prompt_type VARCHAR NOT NULL,
  topic_id VARCHAR,
  country VARCHAR,
  visibility DOUBLE,
  sentiment BIGINT,
  position DOUBLE,
  volume BIGINT,
  cvr DOUBLE,
  intent VARCHAR,
  trend VARCHAR,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET .../prompts/{id}/analytics charts, unpivoted. Grain: prompt × date × provider × metric.
CREATE TABLE IF NOT EXISTS raw.prompt_metrics_daily (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  date DATE NOT NULL,
  provider VARCHAR NOT NULL,
  -- visibility | position | sentiment (the chart the value comes from)
  metric VARCHAR NOT NULL,
  value DOUBLE,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- The window aggregates of the same analytics response. Grain: prompt × window.
CREATE TABLE IF NOT EXISTS raw.prompt_analytics (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  prompt_content VARCHAR,
  volume BIGINT,
  sentiment BIGINT,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET .../prompts/{id}/chats. Grain: chat (one AI answer). chat_date is the UTC day of `date`.
CREATE TABLE IF NOT EXISTS raw.chats (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  date TIMESTAMP NOT NULL,
  chat_date DATE NOT NULL,
  mentioned BOOLEAN NOT NULL,
  position BIGINT,
  chat_preview VARCHAR NOT NULL,
  platform VARCHAR NOT NULL,
  model VARCHAR NOT NULL,
  full_content VARCHAR NOT NULL,
  prompt_content VARCHAR NOT NULL,
  sentiment BIGINT,
  brands_mentioned_is_null BOOLEAN NOT NULL,
  sentiment_by_brands_is_null BOOLEAN NOT NULL,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- Brands of a chat: the union of all_mentions, brands_mentioned and sentiment_by_brands. Grain: chat × brand.
CREATE TABLE IF NOT EXISTS raw.chat_mentions (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  chat_id VARCHAR NOT NULL,
  chat_date DATE NOT NULL,
  brand_name VARCHAR NOT NULL,
  in_all_mentions BOOLEAN NOT NULL,
  icon_url VARCHAR,
  icon_urls VARCHAR[],
  in_brands_mentioned BOOLEAN NOT NULL,
  brand_position BIGINT,
  brand_count BIGINT,
  brand_sentiment DOUBLE,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- References (citations) of a chat. Grain: chat × reference.
CREATE TABLE IF NOT EXISTS raw.chat_references (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  chat_id VARCHAR NOT NULL,
  chat_date DATE NOT NULL,
  reference_index BIGINT,
  title VARCHAR,
  link VARCHAR,
  snippet VARCHAR,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET .../prompts/{id}/domains over the sync's analysis window. Grain: prompt × window × domain.
CREATE TABLE IF NOT EXISTS raw.prompt_domains (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  domain VARCHAR NOT NULL,
  domain_type BIGINT,
  citation_count BIGINT,
  avg_citations DOUBLE,
  used_percentage DOUBLE,
  mentioned BOOLEAN,
  brands_appeared JSON,
  favicon_url VARCHAR,
  favicon_urls VARCHAR[],
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET .../prompts/{id}/urls over the analysis window. Grain: prompt × window × url.
CREATE TABLE IF NOT EXISTS raw.prompt_urls (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  prompt_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  url VARCHAR NOT NULL,
  title VARCHAR,
  domain VARCHAR,
  url_type BIGINT,
  url_type_name VARCHAR,
  mentioned_count BIGINT,
  brands_appear JSON,
  first_seen TIMESTAMP,
  last_seen TIMESTAMP,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET competitors (list_kind 'active', metrics over the window; own brand included) and competitors/pending
-- (list_kind 'pending', no metrics, window columns are the snapshot day). Grain: list × window × competitor.
CREATE TABLE IF NOT EXISTS raw.competitors (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  list_kind VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  competitor_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  website VARCHAR,
  icon_url VARCHAR,
  icon_urls VARCHAR[],
  state VARCHAR,
  is_own_brand BOOLEAN NOT NULL,
  has_metrics BOOLEAN NOT NULL,
  visibility DOUBLE,
  sentiment DOUBLE,
  position DOUBLE,
  mention_count BIGINT,
  days_with_data BIGINT,
  period VARCHAR,
  list_total BIGINT,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET visibility (the trend), one request per day range. Grain: competitor × date.
CREATE TABLE IF NOT EXISTS raw.visibility_daily (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  competitor_id VARCHAR NOT NULL,
  date DATE NOT NULL,
  name VARCHAR,
  website VARCHAR,
  icon_url VARCHAR,
  is_own_brand BOOLEAN,
  visibility DOUBLE,
  sentiment DOUBLE,
  position DOUBLE,
  period VARCHAR,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET overview for prompt_type active and suggested. Grain: requested type × window × prompt.
CREATE TABLE IF NOT EXISTS raw.overview (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  requested_type VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  prompt_id VARCHAR NOT NULL,
  content VARCHAR,
  prompt_type VARCHAR,
  created_at TIMESTAMP,
  topic_id VARCHAR,
  topic_name VARCHAR,
  visibility DOUBLE,
  sentiment DOUBLE,
  position DOUBLE,
  volume BIGINT,
  intent VARCHAR,
  cvr DOUBLE,
  competitors_mentioned JSON,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET sources, every page. Grain: window × source domain.
CREATE TABLE IF NOT EXISTS raw.sources (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  source_id VARCHAR NOT NULL,
  domain VARCHAR NOT NULL,
  category BIGINT,
  reference_count BIGINT,
  page INTEGER NOT NULL,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET sources/analytics, split by part. stats + category breakdown: one row per window.
CREATE TABLE IF NOT EXISTS raw.source_stats (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  total_sources BIGINT,
  total_citations BIGINT,
  corporate_pct DOUBLE,
  editorial_pct DOUBLE,
  institutional_pct DOUBLE,
  reference_pct DOUBLE,
  ugc_pct DOUBLE,
  other_pct DOUBLE,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- performance_chart: daily citation share (percent) of the top 10 domains. Grain: window × domain × date.
CREATE TABLE IF NOT EXISTS raw.source_share_daily (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  domain VARCHAR NOT NULL,
  date DATE NOT NULL,
  citation_share DOUBLE,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- top_domains (top 20 by citation count). Grain: window × domain.
CREATE TABLE IF NOT EXISTS raw.source_top_domains (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  rank INTEGER NOT NULL,
  source_id VARCHAR,
  domain VARCHAR NOT NULL,
  category BIGINT,
  reference_count BIGINT,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- opportunities (cited 3+ times, brand not mentioned). Grain: window × domain.
CREATE TABLE IF NOT EXISTS raw.source_opportunities (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  domain VARCHAR NOT NULL,
  citation_count BIGINT,
  category BIGINT,
  category_name VARCHAR,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET sources/{domain}/detail, every page; the spec does not show item fields, so items are JSON.
-- Grain: window × domain × section (urls | prompts) × item. `stats` repeats the response's stats object.
CREATE TABLE IF NOT EXISTS raw.source_details (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  domain VARCHAR NOT NULL,
  section VARCHAR NOT NULL,
  page INTEGER NOT NULL,
  item_index INTEGER NOT NULL,
  section_total BIGINT,
  item JSON,
  stats JSON,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET sources/{domain}/chats, every page; item fields not shown by the spec, so items are JSON.
-- Grain: window × domain × chat item.
CREATE TABLE IF NOT EXISTS raw.source_chats (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  window_from DATE NOT NULL,
  window_to DATE NOT NULL,
  domain VARCHAR NOT NULL,
  page INTEGER NOT NULL,
  item_index INTEGER NOT NULL,
  item JSON,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET actions (every status). Grain: action, latest state.
CREATE TABLE IF NOT EXISTS raw.actions (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  priority VARCHAR NOT NULL,
  title VARCHAR NOT NULL,
  description VARCHAR,
  category VARCHAR NOT NULL,
  effort VARCHAR,
  expected_impact_min DOUBLE,
  expected_impact_max DOUBLE,
  status VARCHAR NOT NULL,
  targets JSON,
  execution_type VARCHAR,
  execution_prompt VARCHAR,
  execution_skill VARCHAR,
  execution_params JSON,
  "group" VARCHAR,
  depends_on VARCHAR[],
  created_at TIMESTAMP,
  updated_at TIMESTAMP,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET recording. Grain: recorded URL, latest state.
CREATE TABLE IF NOT EXISTS raw.recorded_urls (
  team_id VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  url VARCHAR NOT NULL,
  normalized_url VARCHAR,
  title VARCHAR,
  icon_urls VARCHAR[],
  created_at TIMESTAMP,
  list_total BIGINT,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET /webhooks (team level). Grain: webhook, latest state.
CREATE TABLE IF NOT EXISTS raw.webhooks (
  team_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  url VARCHAR NOT NULL,
  events VARCHAR[],
  is_active BOOLEAN,
  created_at TIMESTAMP,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);
