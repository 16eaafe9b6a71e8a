import { CategoryBreakdown, catalogue, SourceDomain, SourceOpportunity, SourcesAnalytics } from '../../api/index.js';
import type { Partition } from '../../warehouse/load-types.js';
import { dataRequest, defineStream, listRequest, type Row, type UnitScope } from '../declare.js';
import { extraOf, fieldsOf } from '../rows.js';
import { projectParents } from './parents.js';

/** The analytics' `stats` fields: its `_extra` is the rest. */
const STATS_FIELDS = fieldsOf(['total_sources', 'total_citations']);

/** The analysis window of a project parent: its partition (project × window), which every row carries. */
export function projectWindow({ ctx, parent }: UnitScope): Partition {
  return { equals: { project_id: parent.id, window_from: ctx.window.from, window_to: ctx.window.to } };
}

/** GET sources over the analysis window, page after page (100 a page) as its declared pagination says. */
export const sourcesStream = defineStream({
  name: 'sources',
  grain: 'snapshot',
  parents: projectParents,
  // The domains the project's answers cite and their counts are the chats' references; the domain catalogue takes
  // each domain's category from the newest window of any source stream: refreshed on the rotation.
  rotated: () => true,
  estimate: () => 2,
  requests: [sourcesRequest(100)],
});

/** The sources stream's request, `pageSize` sources a page (tests page a small world's sources with fewer). */
export function sourcesRequest(pageSize: number) {
  return listRequest({
    endpoint: catalogue.listSources,
    params: ({ ctx, parent }) => ({
      path: { project_id: parent.id },
      query: { date_from: ctx.window.from, date_to: ctx.window.to },
    }),
    pageSize,
    into: { 'raw.sources': projectWindow },
    item: SourceDomain,
    pick: (raw) => raw,
    key: (s) => s.source_id,
    row: (s, { page }) => ({ ...s, page, _extra: extraOf(s, SourceDomain) }),
  });
}

/**
 * GET sources/analytics over the analysis window, split by part: raw.source_stats (stats + category breakdown),
 * raw.source_share_daily (performance chart), raw.source_top_domains, raw.source_opportunities.
 */
export const sourceAnalyticsStream = defineStream({
  name: 'source_analytics',
  grain: 'snapshot',
  parents: projectParents,
  requests: [
    dataRequest({
      endpoint: catalogue.getSourcesAnalytics,
      params: ({ ctx, parent }) => ({
        path: { project_id: parent.id },
        query: { date_from: ctx.window.from, date_to: ctx.window.to },
      }),
      into: {
        'raw.source_stats': projectWindow,
        'raw.source_share_daily': projectWindow,
        'raw.source_top_domains': projectWindow,
        'raw.source_opportunities': projectWindow,
      },
      rows: (data, unit) => {
        const base = projectWindow(unit).equals;
        const b = data.category_breakdown;
        const stats = {
          ...base,
          total_sources: data.stats.total_sources,
          total_citations: data.stats.total_citations,
          corporate_pct: b.corporate,
          editorial_pct: b.editorial,
          institutional_pct: b.institutional,
          reference_pct: b.reference,
          ugc_pct: b.ugc,
          other_pct: b.other,
          _extra: nonEmpty({
            ...extraOf(data, SourcesAnalytics),
            ...prefixed('stats', extraOf(data.stats, STATS_FIELDS)),
            ...prefixed('category_breakdown', extraOf(b, CategoryBreakdown)),
          }),
        };
        const share: Row[] = [];
        for (const s of data.performance_chart.series) {
          data.performance_chart.dates.forEach((date, i) => {
            share.push({ ...base, domain: s.domain, date, citation_share: s.values[i] ?? null, _extra: null });
          });
        }
        return {
          'raw.source_stats': [stats],
          'raw.source_share_daily': share,
          'raw.source_top_domains': data.top_domains.map((d, i) => ({
            ...base,
            rank: i + 1,
            ...d,
            _extra: extraOf(d, SourceDomain),
          })),
          'raw.source_opportunities': data.opportunities.map((o) => ({
            ...base,
            ...o,
            _extra: extraOf(o, SourceOpportunity),
          })),
        };
      },
    }),
  ],
});

function prefixed(prefix: string, extra: Record<string, unknown> | null): Record<string, unknown> {
  return extra ? { [prefix]: extra } : {};
}

function nonEmpty(value: Record<string, unknown>): Record<string, unknown> | null {
  return Object.keys(value).length > 0 ? value : null;
}
