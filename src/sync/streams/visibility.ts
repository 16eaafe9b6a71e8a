import { catalogue, TrendSeries, VisibilityTrend } from '../../api/index.js';
import { dataRequest, defineStream, type Row } from '../declare.js';
import { extraOf } from '../rows.js';
import { projectParents } from './parents.js';

/** GET visibility per project and day range: the trend series, one row per competitor × date. */
export const visibilityStream = defineStream({
  name: 'visibility_daily',
  grain: 'daily',
  parents: projectParents,
  requests: [
    dataRequest({
      endpoint: catalogue.getVisibilityTrend,
      params: ({ parent, range }) => ({
        path: { project_id: parent.id },
        query: { date_from: range.from, date_to: range.to },
      }),
      into: {
        'raw.visibility_daily': ({ parent, range }) => ({
          equals: { project_id: parent.id },
          between: { column: 'date', from: range.from, to: range.to },
        }),
      },
      rows: (data, { parent, range }) => {
        const rows: Row[] = [];
        const trendExtra = extraOf(data, VisibilityTrend);
        for (const s of data.series) {
          const extra = extraOf(s, TrendSeries);
          data.dates.forEach((date, i) => {
            if (date < range.from || date > range.to) return;
            rows.push({
              project_id: parent.id,
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
              // A conditional spread: _extra is landed as JSON text.
              _extra: extra || trendExtra ? { ...(extra ?? {}), ...(trendExtra ? { _trend: trendExtra } : {}) } : null,
            });
          });
        }
        return { 'raw.visibility_daily': rows };
      },
    }),
  ],
});
