import { catalogue, OverviewItem } from '../../api/index.js';
import type { TableLoad } from '../../warehouse/loader.js';
import { fetchList, field } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { Rejection, StreamDef } from '../types.js';
import { projectParents } from './parents.js';

const TYPES = ['active', 'suggested'] as const;

/** GET overview for prompt_type active and suggested over the analysis window → raw.overview. */
export const overviewStream: StreamDef = {
  name: 'overview',
  tables: ['raw.overview'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => TYPES.length,
  async fetch(ctx, parent) {
    const projectId = parent.id;
    const w = { window_from: ctx.window.from, window_to: ctx.window.to };
    const loads: TableLoad[] = [];
    const rejected: Rejection[] = [];
    for (const type of TYPES) {
      const res = await fetchList(
        ctx,
        catalogue.getOverview,
        {
          path: { project_id: projectId },
          query: { date_from: w.window_from, date_to: w.window_to, prompt_type: type },
        },
        OverviewItem,
        field('items'),
      );
      rejected.push(...res.rejected);
      loads.push({
        table: 'raw.overview',
        partition: { equals: { project_id: projectId, requested_type: type, ...w } },
        rows: res.items.map((item) => ({
          project_id: projectId,
          requested_type: type,
          ...w,
          ...item,
          _extra: extraOf(item, OverviewItem),
        })),
      });
    }
    return { loads, rejected };
  },
};
