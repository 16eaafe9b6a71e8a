/**
 * Every stream's name, in the order of STREAMS (sync/streams/index.ts; a test holds them equal). Apart from the
 * stream declarations, which load the whole API contract, so that `vwh sync --help` lists them without loading it;
 * in core, below the config schema that lists them.
 */
export const STREAM_NAMES: readonly string[] = [
  'projects',
  'project_aliases',
  'prompts',
  'prompt_metrics_daily',
  'chats',
  'prompt_domains',
  'prompt_urls',
  'competitors',
  'visibility_daily',
  'overview',
  'sources',
  'source_analytics',
  'source_details',
  'source_chats',
  'actions',
  'recorded_urls',
  'webhooks',
  'content_tasks',
  'articles',
  'team_members',
];
