/** Project analytics: overview, visibility trend, sources (list, analytics, per-domain detail and chats). */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import { OverviewList, OverviewQuery, VisibilityTrend } from '../schemas/analytics.js';
import { DateRangeQuery, ProjectParams } from '../schemas/common.js';
import {
  SourceChats,
  SourceChatsQuery,
  SourceChatsServed,
  SourceDetail,
  SourceDetailQuery,
  SourceDetailServed,
  SourceDomainPage,
  SourceParams,
  SourcesAnalytics,
  SourcesQuery,
} from '../schemas/sources.js';

const base = { service: 'public', method: 'GET', envelope: 'A' } as const;
const rangeErrors = [ERRORS.invalidRequest, ERRORS.dateRangeInvalid];

export const analyticsEndpoints = {
  getOverview: defineEndpoint({
    ...base,
    tag: 'analytics',
    id: 'getOverview',
    path: '/projects/{project_id}/overview',
    summary: 'Per-prompt metrics and competitors mentioned, for active (default) or suggested prompts.',
    params: ProjectParams,
    query: OverviewQuery,
    data: OverviewList,
    errors: [ERRORS.overviewPromptType, ...rangeErrors],
  }),
  getVisibilityTrend: defineEndpoint({
    ...base,
    tag: 'analytics',
    id: 'getVisibilityTrend',
    path: '/projects/{project_id}/visibility',
    summary: 'Daily visibility, sentiment and position per active competitor (providers averaged).',
    params: ProjectParams,
    query: DateRangeQuery,
    data: VisibilityTrend,
    errors: rangeErrors,
  }),
  listSources: defineEndpoint({
    ...base,
    tag: 'sources',
    id: 'listSources',
    path: '/projects/{project_id}/sources',
    summary: 'Cited source domains by reference_count descending; no total: fetch pages until an empty array.',
    params: ProjectParams,
    query: SourcesQuery,
    data: SourceDomainPage,
    pagination: 'page-until-empty',
    errors: rangeErrors,
  }),
  getSourcesAnalytics: defineEndpoint({
    ...base,
    tag: 'sources',
    id: 'getSourcesAnalytics',
    path: '/projects/{project_id}/sources/analytics',
    summary: 'Source totals, category breakdown, top-domain chart, top domains and opportunities.',
    params: ProjectParams,
    query: DateRangeQuery,
    data: SourcesAnalytics,
    errors: rangeErrors,
  }),
  getSourceDetail: defineEndpoint({
    ...base,
    tag: 'sources',
    id: 'getSourceDetail',
    path: '/projects/{project_id}/sources/{domain}/detail',
    summary: 'One domain: stats, and its URLs and prompts as paginated objects.',
    params: SourceParams,
    query: SourceDetailQuery,
    data: SourceDetail,
    served: SourceDetailServed,
    pagination: 'page-total',
    errors: rangeErrors,
  }),
  getSourceChats: defineEndpoint({
    ...base,
    tag: 'sources',
    id: 'getSourceChats',
    path: '/projects/{project_id}/sources/{domain}/chats',
    summary: 'Answers citing one domain, paginated.',
    params: SourceParams,
    query: SourceChatsQuery,
    data: SourceChats,
    served: SourceChatsServed,
    pagination: 'page-total',
    errors: rangeErrors,
  }),
} as const;
