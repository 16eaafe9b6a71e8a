import { type Competitor, CompetitorMetrics, Competitor as CompetitorSchema, catalogue } from '../../api/index.js';
import { defineStream, listRequest, type UnitScope } from '../declare.js';
import { field } from '../fetch.js';
import { extraOf } from '../rows.js';
import { projectParents } from './parents.js';

/**
 * raw.competitors: the active list over the analysis window (own brand included, with metrics and the period they
 * cover) and the pending list (no metrics; its window columns hold the snapshot day). Two requests per project.
 */
export const competitorsStream = defineStream({
  name: 'competitors',
  grain: 'snapshot',
  parents: projectParents,
  requests: [
    listRequest({
      endpoint: catalogue.listCompetitors,
      params: ({ ctx, parent }) => ({
        path: { project_id: parent.id },
        query: { date_from: ctx.window.from, date_to: ctx.window.to },
      }),
      into: { 'raw.competitors': (unit) => listPartition(unit, 'active', activeWindow(unit)) },
      item: CompetitorSchema,
      pick: field('active_competitors'),
      key: (c) => c.competitor_id,
      rows: (items, unit) => ({
        'raw.competitors': items.map((c) =>
          competitorRow(unit.parent.id, 'active', activeWindow(unit), c, unit.data?.total_active),
        ),
      }),
    }),
    listRequest({
      endpoint: catalogue.listPendingCompetitors,
      params: ({ parent }) => ({ path: { project_id: parent.id } }),
      into: { 'raw.competitors': (unit) => listPartition(unit, 'pending', pendingWindow(unit)) },
      item: CompetitorSchema,
      pick: field('pending_competitors'),
      key: (c) => c.competitor_id,
      rows: (items, unit) => ({
        'raw.competitors': items.map((c) =>
          competitorRow(unit.parent.id, 'pending', pendingWindow(unit), c, unit.data?.total_pending),
        ),
      }),
    }),
  ],
});

type Window = { window_from: string; window_to: string };

/** The active list covers the analysis window; the pending list has no metrics: its window is the snapshot day. */
function activeWindow({ ctx }: UnitScope): Window {
  return { window_from: ctx.window.from, window_to: ctx.window.to };
}

function pendingWindow({ range }: UnitScope): Window {
  return { window_from: range.to, window_to: range.to };
}

function listPartition({ parent }: UnitScope, listKind: string, window: Window) {
  return { equals: { project_id: parent.id, list_kind: listKind, ...window } };
}

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
    // A conditional spread: _extra is landed as JSON text.
    _extra: extra || metricsExtra ? { ...(extra ?? {}), ...(metricsExtra ? { metrics: metricsExtra } : {}) } : null,
  };
}
