-- The second document's services (content generation /api/v1, teams /api/v2), base URL configurable
-- (servicesBaseUrl). Same conventions as 002_raw.sql: team_id first, then the API's fields in snake_case,
-- `_extra` (unknown fields), `_sync_run_id`, `_extracted_at`. All three are snapshots: latest state, replaced whole
-- once per sync day.

-- GET /api/v1/tasks (every status, every page). Grain: task, latest state. `inputs` flattened (`uploaded_files`
-- kept as JSON), `error` split into code and message.
CREATE TABLE IF NOT EXISTS raw.content_tasks (
  team_id VARCHAR NOT NULL,
  task_id VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  phase VARCHAR,
  progress INTEGER NOT NULL,
  user_prompt VARCHAR NOT NULL,
  keywords VARCHAR[] NOT NULL,
  reference_links VARCHAR[] NOT NULL,
  uploaded_files JSON NOT NULL,
  min_words INTEGER,
  max_words INTEGER,
  error_code VARCHAR,
  error_message VARCHAR,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  started_at TIMESTAMP,
  completed_at TIMESTAMP,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET /api/v1/articles (every publication status, every page; full articles). Grain: article, latest state.
CREATE TABLE IF NOT EXISTS raw.articles (
  team_id VARCHAR NOT NULL,
  article_id VARCHAR NOT NULL,
  task_id VARCHAR,
  title VARCHAR NOT NULL,
  content VARCHAR NOT NULL,
  slug VARCHAR NOT NULL,
  seo_title VARCHAR,
  seo_description VARCHAR,
  keywords VARCHAR[] NOT NULL,
  featured_images JSON NOT NULL,
  data_sources JSON NOT NULL,
  publication_status VARCHAR NOT NULL,
  published_at TIMESTAMP,
  version INTEGER NOT NULL,
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

-- GET /api/v2/teams/me then GET /api/v2/teams/{team_id}/members, as the configured userId. Grain: member (active or
-- invited), latest state; the service's team (`api_team_id`, name, plan, seats) repeated on each row.
CREATE TABLE IF NOT EXISTS raw.team_members (
  team_id VARCHAR NOT NULL,
  api_team_id VARCHAR NOT NULL,
  team_name VARCHAR,
  team_plan VARCHAR,
  seat_limit INTEGER,
  member_count INTEGER,
  team_created_at TIMESTAMP,
  user_id VARCHAR,
  email VARCHAR NOT NULL,
  name VARCHAR,
  role VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  joined_at TIMESTAMP,
  _extra JSON, _sync_run_id VARCHAR NOT NULL, _extracted_at TIMESTAMP NOT NULL
);

COMMENT ON TABLE raw.content_tasks IS 'GET /api/v1/tasks, every status and page. Grain: task, latest state (snapshot per sync day).';
COMMENT ON TABLE raw.articles IS 'GET /api/v1/articles, every status and page. Grain: article, latest state (snapshot per sync day).';
COMMENT ON TABLE raw.team_members IS 'GET /api/v2/teams/{id}/members as the configured userId. Grain: member, latest state (snapshot per sync day).';
