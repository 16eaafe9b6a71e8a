-- Every raw table says its grain in the catalog (duckdb_tables().comment, shown by BI tools and DBeaver); window
-- tables say which window their rows aggregate over (their window_from / window_to columns).
COMMENT ON TABLE raw.projects IS 'GET /projects/{id} (single view, aliases filled). Grain: project, latest state.';
COMMENT ON TABLE raw.project_aliases IS 'GET /projects/{id}/aliases. Grain: project x alias, latest state.';
COMMENT ON TABLE raw.prompts IS 'GET /projects/{id}/prompts, every type. Grain: prompt, latest state; metrics over the API default window.';
COMMENT ON TABLE raw.prompt_state_daily IS 'The prompt list kept once per UTC sync day (type, visibility, trend history). Grain: snapshot_date x prompt.';
COMMENT ON TABLE raw.prompt_metrics_daily IS 'GET .../prompts/{id}/analytics charts, unpivoted. Grain: prompt x date x provider x metric.';
COMMENT ON TABLE raw.prompt_analytics IS 'Window aggregates of GET .../prompts/{id}/analytics. Window: window_from..window_to = the unit day range. Grain: prompt x window.';
COMMENT ON TABLE raw.chats IS 'GET .../prompts/{id}/chats. Grain: chat (one AI answer); chat_date = UTC day of date.';
COMMENT ON TABLE raw.chat_mentions IS 'Brands of a chat (all_mentions, brands_mentioned, sentiment_by_brands). Grain: chat x brand.';
COMMENT ON TABLE raw.chat_references IS 'References (citations) of a chat. Grain: chat x reference.';
COMMENT ON TABLE raw.prompt_domains IS 'GET .../prompts/{id}/domains. Window: window_from..window_to = the analysis window of the sync day. Grain: prompt x window x domain.';
COMMENT ON TABLE raw.prompt_urls IS 'GET .../prompts/{id}/urls. Window: window_from..window_to = the analysis window. Grain: prompt x window x url.';
COMMENT ON TABLE raw.competitors IS 'GET competitors (active: metrics over window_from..window_to, own brand included) and competitors/pending (window columns = snapshot day). Grain: list_kind x window x competitor.';
COMMENT ON TABLE raw.visibility_daily IS 'GET visibility (the trend series). Grain: competitor x date.';
COMMENT ON TABLE raw.overview IS 'GET overview for prompt_type active and suggested. Window: window_from..window_to = the analysis window. Grain: requested_type x window x prompt.';
COMMENT ON TABLE raw.sources IS 'GET sources, every page. Window: window_from..window_to = the analysis window. Grain: window x domain.';
COMMENT ON TABLE raw.source_stats IS 'GET sources/analytics stats and category breakdown. Window: window_from..window_to. Grain: window.';
COMMENT ON TABLE raw.source_share_daily IS 'GET sources/analytics performance_chart (daily citation share of the top domains), requested over window_from..window_to. Grain: window x domain x date.';
COMMENT ON TABLE raw.source_top_domains IS 'GET sources/analytics top_domains. Window: window_from..window_to. Grain: window x domain.';
COMMENT ON TABLE raw.source_opportunities IS 'GET sources/analytics opportunities. Window: window_from..window_to. Grain: window x domain.';
COMMENT ON TABLE raw.source_details IS 'GET sources/{domain}/detail, every page, items as JSON. Window: window_from..window_to. Grain: window x domain x section x item.';
COMMENT ON TABLE raw.source_chats IS 'GET sources/{domain}/chats, every page, items as JSON. Window: window_from..window_to. Grain: window x domain x chat item.';
COMMENT ON TABLE raw.actions IS 'GET actions, every status. Grain: action, latest state.';
COMMENT ON TABLE raw.recorded_urls IS 'GET recording. Grain: recorded URL, latest state.';
COMMENT ON TABLE raw.webhooks IS 'GET /webhooks (team level). Grain: webhook, latest state.';
