import { catalogue, TrendSeries, VisibilityTrend } from '../../api/index.js';
import { fetchOne } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { projectParents } from './parents.js';

/** GET visibility per project and day range: the trend series, one row per competitor × date. */
export const visibilityStream: StreamDef = {
  name: 'visibility_daily',
  tables: ['raw.visibility_daily'],
  grain: 'daily',
  parents: projectParents,
  estimate: () => 1,
  async fetch(ctx, parent, range) {
    const projectId = parent.id;
    const { data, rejected } = await fetchOne(ctx, catalogue.getVisibilityTrend, {
      path: { project_id: projectId },
      query: { date_from: range.from, date_to: range.to },
    });
    const rows: Record<string, unknown>[] = [];
    if (data) {
      const trendExtra = extraOf(data, VisibilityTrend);
      for (const s of data.series) {
        const extra = extraOf(s, TrendSeries);
        data.dates.forEach((date, i) => {
          if (date < range.from || date > range.to) return;
          rows.push({
            project_id: projectId,
            competitor_id: s.competitor_id,
            date,
            name: s.name,
            website: s.website,
            icon_url: s.icon_url,
            is_own_brand: s.is_own_brand,
            visibility: s.visibility[i] ?? null,
            sentiment: s.sentiment[i] ?? null,
            position: s.position[i] ?? null,
            period: data.period,
            _extra: extra || trendExtra ? { ...(extra ?? {}), ...(trendExtra ? { _trend: trendExtra } : {}) } : null,
          });
        });
      }
    }
    return {
      loads: [
        {
          table: 'raw.visibility_daily',
          partition: { equals: { project_id: projectId }, between: { column: 'date', from: range.from, to: range.to } },
          rows,
        },
      ],
      rejected,
    };
  },
};
