import type { StreamDef } from '../types.js';
import { chatsStream } from './chats.js';
import { competitorsStream } from './competitors.js';
import { articlesStream, contentTasksStream } from './content.js';
import { overviewStream } from './overview.js';
import { actionsStream, projectAliasesStream, recordedUrlsStream, webhooksStream } from './project-lists.js';
import { projectsStream } from './projects.js';
import { promptDomainsStream, promptUrlsStream } from './prompt-citations.js';
import { promptMetricsStream } from './prompt-metrics.js';
import { promptsStream } from './prompts.js';
import { sourceChatsStream, sourceDetailsStream } from './source-domains.js';
import { sourceAnalyticsStream, sourcesStream } from './sources.js';
import { teamMembersStream } from './team-members.js';
import { visibilityStream } from './visibility.js';

/** Every stream, in the order a sync runs them (source_analytics before the per-domain streams that read it). */
export const STREAMS: readonly StreamDef[] = [
  projectsStream,
  projectAliasesStream,
  promptsStream,
  promptMetricsStream,
  chatsStream,
  promptDomainsStream,
  promptUrlsStream,
  competitorsStream,
  visibilityStream,
  overviewStream,
  sourcesStream,
  sourceAnalyticsStream,
  sourceDetailsStream,
  sourceChatsStream,
  actionsStream,
  recordedUrlsStream,
  webhooksStream,
  // The second document's services (content generation, teams), at the services base URL.
  contentTasksStream,
  articlesStream,
  teamMembersStream,
];

export { STREAM_NAMES } from '../../core/stream-names.js';
