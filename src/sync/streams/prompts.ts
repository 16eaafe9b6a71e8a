import { Prompt } from '../../api/index.js';
import { extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { projectParents } from './parents.js';

/**
 * raw.prompts (latest state, every type) and raw.prompt_state_daily (the same list kept per sync day, so type,
 * visibility and trend history can be rebuilt). Lands the list discovery already fetched: no extra request.
 */
export const promptsStream: StreamDef = {
  name: 'prompts',
  tables: ['raw.prompts', 'raw.prompt_state_daily'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 0,
  async fetch(ctx, parent, range) {
    const found = ctx.discovery.projects.find((p) => p.project.id === parent.id);
    const prompts = found?.prompts ?? [];
    const rows = prompts.map((p) => ({ ...p, _extra: extraOf(p, Prompt) }));
    const daily = prompts.map(({ id, created_at: _created, ...rest }) => ({
      ...rest,
      prompt_id: id,
      snapshot_date: range.to,
      _extra: extraOf(rest, Prompt),
    }));
    return {
      loads: [
        { table: 'raw.prompts', partition: { equals: { project_id: parent.id } }, rows },
        {
          table: 'raw.prompt_state_daily',
          partition: { equals: { project_id: parent.id, snapshot_date: range.to } },
          rows: daily,
        },
      ],
      rejected: found?.rejected ?? [],
    };
  },
};
