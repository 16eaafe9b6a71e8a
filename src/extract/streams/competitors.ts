import { type Competitor, CompetitorMetrics, Competitor as CompetitorSchema, catalogue } from '../../api/index.js';
import { fetchList, field } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { Rejection, StreamDef } from '../types.js';
import { projectParents } from './parents.js';

/**
 * raw.competitors: the active list over the analysis window (own brand included, with metrics and the period they
 * cover) and the pending list (no metrics; its window columns hold the snapshot day). Two requests per project.
 */
export const competitorsStream: StreamDef = {
  name: 'competitors',
  tables: ['raw.competitors'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 2,
  async fetch(ctx, parent, range) {
    const projectId = parent.id;
    const rejected: Rejection[] = [];
    const active = await fetchList(
      ctx,
      catalogue.listCompetitors,
      { path: { project_id: projectId }, query: { date_from: ctx.window.from, date_to: ctx.window.to } },
      CompetitorSchema,
      field('active_competitors'),
    );
    rejected.push(...active.rejected);
    const pending = await fetchList(
      ctx,
      catalogue.listPendingCompetitors,
      { path: { project_id: projectId } },
      CompetitorSchema,
      field('pending_competitors'),
    );
    rejected.push(...pending.rejected);
    const activeWindow = { window_from: ctx.window.from, window_to: ctx.window.to };
    const pendingWindow = { window_from: range.to, window_to: range.to };
    return {
      loads: [
        {
          table: 'raw.competitors',
          partition: { equals: { project_id: projectId, list_kind: 'active', ...activeWindow } },
          rows: active.items.map((c) => competitorRow(projectId, 'active', activeWindow, c, active.data?.total_active)),
        },
        {
          table: 'raw.competitors',
          partition: { equals: { project_id: projectId, list_kind: 'pending', ...pendingWindow } },
          rows: pending.items.map((c) =>
            competitorRow(projectId, 'pending', pendingWindow, c, pending.data?.total_pending),
          ),
        },
      ],
      rejected,
    };
  },
};

function competitorRow(
  projectId: string,
  listKind: string,
  window: { window_from: string; window_to: string },
  c: Competitor,
  total: number | undefined,
): Record<string, unknown> {
  const m = c.metrics;
  const extra = extraOf(c, CompetitorSchema);
  const metricsExtra = m ? extraOf(m, CompetitorMetrics) : null;
  return {
    project_id: projectId,
    list_kind: listKind,
    ...window,
    competitor_id: c.competitor_id,
    name: c.name,
    website: c.website,
    icon_url: c.icon_url,
    icon_urls: c.icon_urls,
    state: c.state,
    is_own_brand: c.is_own_brand,
    has_metrics: m !== null,
    visibility: m?.visibility ?? null,
    sentiment: m?.sentiment ?? null,
    position: m?.position ?? null,
    mention_count: m?.mention_count ?? null,
    days_with_data: m?.days_with_data ?? null,
    period: m?.period ?? null,
    list_total: total ?? null,
    _extra: extra || metricsExtra ? { ...(extra ?? {}), ...(metricsExtra ? { metrics: metricsExtra } : {}) } : null,
  };
}
