import { catalogue, PromptDomainItem, PromptUrlItem } from '../../api/index.js';
import { fetchList, field } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { promptParents } from './parents.js';

/** GET .../domains per prompt over the analysis window → raw.prompt_domains. */
export const promptDomainsStream: StreamDef = {
  name: 'prompt_domains',
  tables: ['raw.prompt_domains'],
  grain: 'snapshot',
  parents: promptParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const projectId = parent.projectId ?? '';
    const promptId = parent.promptId ?? parent.id;
    const { items, rejected } = await fetchList(
      ctx,
      catalogue.getPromptDomains,
      {
        path: { project_id: projectId, prompt_id: promptId },
        query: { date_from: ctx.window.from, date_to: ctx.window.to },
      },
      PromptDomainItem,
      field('items'),
    );
    const w = { window_from: ctx.window.from, window_to: ctx.window.to };
    const rows = items.map((d) => ({
      project_id: projectId,
      prompt_id: promptId,
      ...w,
      ...d,
      _extra: extraOf(d, PromptDomainItem),
    }));
    return {
      loads: [
        {
          table: 'raw.prompt_domains',
          partition: { equals: { project_id: projectId, prompt_id: promptId, ...w } },
          rows,
        },
      ],
      rejected,
    };
  },
};

/** GET .../urls per prompt over the analysis window → raw.prompt_urls. */
export const promptUrlsStream: StreamDef = {
  name: 'prompt_urls',
  tables: ['raw.prompt_urls'],
  grain: 'snapshot',
  parents: promptParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const projectId = parent.projectId ?? '';
    const promptId = parent.promptId ?? parent.id;
    const { items, rejected } = await fetchList(
      ctx,
      catalogue.getPromptUrls,
      {
        path: { project_id: projectId, prompt_id: promptId },
        query: { date_from: ctx.window.from, date_to: ctx.window.to },
      },
      PromptUrlItem,
      field('items'),
    );
    const w = { window_from: ctx.window.from, window_to: ctx.window.to };
    const rows = items.map((u) => ({
      project_id: projectId,
      prompt_id: promptId,
      ...w,
      ...u,
      _extra: extraOf(u, PromptUrlItem),
    }));
    return {
      loads: [
        { table: 'raw.prompt_urls', partition: { equals: { project_id: projectId, prompt_id: promptId, ...w } }, rows },
      ],
      rejected,
    };
  },
};
