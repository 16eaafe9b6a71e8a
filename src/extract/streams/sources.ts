import { CategoryBreakdown, catalogue, SourceDomain, SourceOpportunity, SourcesAnalytics } from '../../api/index.js';
import { fetchList, fetchOne } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { Rejection, StreamDef } from '../types.js';
import { projectParents } from './parents.js';

const SOURCES_PAGE_SIZE = 100;

/** GET sources over the analysis window, page after page until an empty page (the API gives no total). */
export const sourcesStream: StreamDef = {
  name: 'sources',
  tables: ['raw.sources'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 2,
  async fetch(ctx, parent) {
    const projectId = parent.id;
    const w = { window_from: ctx.window.from, window_to: ctx.window.to };
    const rows: Record<string, unknown>[] = [];
    const rejected: Rejection[] = [];
    for (let page = 1; ; page++) {
      const res = await fetchList(
        ctx,
        catalogue.listSources,
        {
          path: { project_id: projectId },
          query: { date_from: w.window_from, date_to: w.window_to, page, page_size: SOURCES_PAGE_SIZE },
        },
        SourceDomain,
        (r) => r,
      );
      rejected.push(...res.rejected);
      const count = res.data ? res.data.length : res.items.length + res.rejected.length;
      for (const s of res.items)
        rows.push({ project_id: projectId, ...w, ...s, page, _extra: extraOf(s, SourceDomain) });
      // A page shorter than asked is the last one; an empty page ends it too (the spec's rule).
      if (count < SOURCES_PAGE_SIZE || (res.data === undefined && res.items.length === 0)) break;
    }
    return {
      loads: [{ table: 'raw.sources', partition: { equals: { project_id: projectId, ...w } }, rows }],
      rejected,
    };
  },
};

/**
 * GET sources/analytics over the analysis window, split by part: raw.source_stats (stats + category breakdown),
 * raw.source_share_daily (performance chart), raw.source_top_domains, raw.source_opportunities.
 */
export const sourceAnalyticsStream: StreamDef = {
  name: 'source_analytics',
  tables: ['raw.source_stats', 'raw.source_share_daily', 'raw.source_top_domains', 'raw.source_opportunities'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const projectId = parent.id;
    const w = { window_from: ctx.window.from, window_to: ctx.window.to };
    const { data, rejected } = await fetchOne(ctx, catalogue.getSourcesAnalytics, {
      path: { project_id: projectId },
      query: { date_from: w.window_from, date_to: w.window_to },
    });
    const base = { project_id: projectId, ...w };
    const partition = { equals: base };
    const stats: Record<string, unknown>[] = [];
    const share: Record<string, unknown>[] = [];
    const top: Record<string, unknown>[] = [];
    const opportunities: Record<string, unknown>[] = [];
    if (data) {
      const b = data.category_breakdown;
      stats.push({
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
          ...prefixed('stats', extraOf(data.stats, ['total_sources', 'total_citations'])),
          ...prefixed('category_breakdown', extraOf(b, CategoryBreakdown)),
        }),
      });
      for (const s of data.performance_chart.series) {
        data.performance_chart.dates.forEach((date, i) => {
          share.push({ ...base, domain: s.domain, date, citation_share: s.values[i] ?? null, _extra: null });
        });
      }
      data.top_domains.forEach((d, i) => {
        top.push({ ...base, rank: i + 1, ...d, _extra: extraOf(d, SourceDomain) });
      });
      for (const o of data.opportunities) opportunities.push({ ...base, ...o, _extra: extraOf(o, SourceOpportunity) });
    }
    return {
      loads: [
        { table: 'raw.source_stats', partition, rows: stats },
        { table: 'raw.source_share_daily', partition, rows: share },
        { table: 'raw.source_top_domains', partition, rows: top },
        { table: 'raw.source_opportunities', partition, rows: opportunities },
      ],
      rejected,
    };
  },
};

function prefixed(prefix: string, extra: Record<string, unknown> | null): Record<string, unknown> {
  return extra ? { [prefix]: extra } : {};
}

function nonEmpty(value: Record<string, unknown>): Record<string, unknown> | null {
  return Object.keys(value).length > 0 ? value : null;
}
