import { catalogue, PromptDomainItem, PromptUrlItem } from '../../api/index.js';
import { defineStream, listRequest, type UnitScope } from '../declare.js';
import { field } from '../fetch.js';
import { extraOf } from '../rows.js';
import { promptParents } from './parents.js';

/** Per prompt, over the analysis window: the path, the query, and the partition (prompt × window). */
const perPrompt = {
  grain: 'snapshot',
  parents: promptParents,
  // Derivable from the chats (their references): refreshed weekly on the rotation, not every night.
  rotated: () => true,
} as const;

const promptWindow = ({ ctx, parent }: UnitScope) => ({
  path: { project_id: parent.projectId ?? '', prompt_id: parent.promptId ?? parent.id },
  query: { date_from: ctx.window.from, date_to: ctx.window.to },
});

const promptWindowPartition = ({ ctx, parent }: UnitScope) => ({
  equals: {
    project_id: parent.projectId ?? '',
    prompt_id: parent.promptId ?? parent.id,
    window_from: ctx.window.from,
    window_to: ctx.window.to,
  },
});

/** GET .../domains per prompt over the analysis window → raw.prompt_domains. */
export const promptDomainsStream = defineStream({
  name: 'prompt_domains',
  ...perPrompt,
  requests: [
    listRequest({
      endpoint: catalogue.getPromptDomains,
      params: promptWindow,
      into: { 'raw.prompt_domains': promptWindowPartition },
      item: PromptDomainItem,
      pick: field('items'),
      row: (d) => ({ ...d, _extra: extraOf(d, PromptDomainItem) }),
    }),
  ],
});

/** GET .../urls per prompt over the analysis window → raw.prompt_urls. */
export const promptUrlsStream = defineStream({
  name: 'prompt_urls',
  ...perPrompt,
  requests: [
    listRequest({
      endpoint: catalogue.getPromptUrls,
      params: promptWindow,
      into: { 'raw.prompt_urls': promptWindowPartition },
      item: PromptUrlItem,
      pick: field('items'),
      row: (u) => ({ ...u, _extra: extraOf(u, PromptUrlItem) }),
    }),
  ],
});
