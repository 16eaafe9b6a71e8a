/**
 * Sources: the flat paged list (no total; clients fetch until an empty page), analytics, and per-domain detail
 * and chats (paged inside the data object by the world).
 */
import type { Hono } from 'hono';
import type { ApiEnv } from '../http/env.js';
import { worldQuery } from '../http/query.js';
import { route } from '../http/route.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import type { WorldQuery } from '../world/types.js';

type Loose = Record<string, unknown>;

/**
 * Fills the source-detail stats the contract names when the world leaves them out: `total_urls` (the paged URL
 * total), `brand_mentioned_rate` (the world's `mention_rate`), `citation_share` (the domain's citations over every
 * citation of the range, percent), and category 5 `other` for a domain never cited. Fields the world gives are kept.
 */
function withDetailStats(state: ReferenceState, project: ProjectRecord, range: WorldQuery, detail: unknown): unknown {
  const body = (detail ?? {}) as Loose;
  const stats = { ...((body.stats ?? {}) as Loose) };
  const urls = (body.urls ?? {}) as Loose;
  stats.total_urls ??= typeof urls.total === 'number' ? urls.total : 0;
  stats.brand_mentioned_rate ??= typeof stats.mention_rate === 'number' ? stats.mention_rate : 0;
  if (stats.citation_share === undefined) {
    const all = (state.world.sourcesAnalytics(project.config, range) as { stats?: { total_citations?: number } }).stats;
    const total = all?.total_citations ?? 0;
    const mine = typeof stats.total_citations === 'number' ? stats.total_citations : 0;
    stats.citation_share = total > 0 ? Math.round((mine / total) * 10_000) / 100 : 0;
  }
  // A domain never cited in the range has no category in the world; the contract wants one: 5 (other).
  stats.category ??= 5;
  stats.category_name ??= 'other';
  return { ...body, stats };
}

export function registerSources(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listSources', ({ project, query }) => {
    const all = state.world.sources(project.config, worldQuery(state, query));
    return all.slice((query.page - 1) * query.page_size, query.page * query.page_size);
  });
  route(api, state, 'getSourcesAnalytics', ({ project, query }) => {
    return state.world.sourcesAnalytics(project.config, worldQuery(state, query));
  });
  route(api, state, 'getSourceDetail', ({ c, project, query }) => {
    const domain = (c.req.param('domain') ?? '').toLowerCase();
    const range = worldQuery(state, query);
    const detail = state.world.sourceDetail(project.config, domain, range, query.page, query.page_size);
    return withDetailStats(state, project, range, detail);
  });
  route(api, state, 'getSourceChats', ({ c, project, query }) => {
    const domain = (c.req.param('domain') ?? '').toLowerCase();
    const page = state.world.sourceChats(project.config, domain, worldQuery(state, query), query.page, query.page_size);
    return { domain, ...(page as object) };
  });
}
