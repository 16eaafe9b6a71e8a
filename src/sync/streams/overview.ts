import { catalogue, OverviewItem } from '../../api/index.js';
import { defineStream, listRequest, type UnitScope } from '../declare.js';
import { field } from '../fetch.js';
import { extraOf } from '../rows.js';
import { projectParents } from './parents.js';

const TYPES = ['active', 'suggested'] as const;
type PromptType = (typeof TYPES)[number];

/** GET overview for prompt_type active and suggested over the analysis window → raw.overview. */
export const overviewStream = defineStream({
  name: 'overview',
  grain: 'snapshot',
  parents: projectParents,
  // Aggregates of the answers over the window (the marts recompute them from the chats): refreshed on the rotation,
  // each project on its night.
  rotated: () => true,
  estimate: () => TYPES.length,
  requests: [
    listRequest({
      endpoint: catalogue.getOverview,
      each: () => TYPES,
      params: ({ ctx, parent }, type: PromptType) => ({
        path: { project_id: parent.id },
        query: { date_from: ctx.window.from, date_to: ctx.window.to, prompt_type: type },
      }),
      into: {
        'raw.overview': ({ ctx, parent }: UnitScope, type: PromptType | undefined) => ({
          equals: {
            project_id: parent.id,
            requested_type: type,
            window_from: ctx.window.from,
            window_to: ctx.window.to,
          },
        }),
      },
      item: OverviewItem,
      pick: field('items'),
      row: (item) => ({ ...item, _extra: extraOf(item, OverviewItem) }),
    }),
  ],
});
