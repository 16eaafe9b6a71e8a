import { catalogue, PromptDomainItem, PromptUrlItem } from '../../api/index.js';
import { field } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { Parent, UnitContext } from '../types.js';
import { listStream } from './list-stream.js';
import { promptParents } from './parents.js';

/** Per prompt, over the analysis window: the path, the query, and the partition (prompt × window). */
const promptWindow = {
  parents: promptParents,
  // Derivable from the chats (their references): refreshed weekly on the rotation, not every night.
  rotated: () => true,
  params: (parent: Parent, ctx: UnitContext) => ({
    path: { project_id: parent.projectId ?? '', prompt_id: parent.promptId ?? parent.id },
    query: { date_from: ctx.window.from, date_to: ctx.window.to },
  }),
  partition: (parent: Parent, ctx: UnitContext) => ({
    project_id: parent.projectId ?? '',
    prompt_id: parent.promptId ?? parent.id,
    window_from: ctx.window.from,
    window_to: ctx.window.to,
  }),
  pick: field('items'),
};

/** GET .../domains per prompt over the analysis window → raw.prompt_domains. */
export const promptDomainsStream = listStream({
  name: 'prompt_domains',
  table: 'raw.prompt_domains',
  endpoint: catalogue.getPromptDomains,
  item: PromptDomainItem,
  ...promptWindow,
  row: (d) => ({ ...d, _extra: extraOf(d, PromptDomainItem) }),
});

/** GET .../urls per prompt over the analysis window → raw.prompt_urls. */
export const promptUrlsStream = listStream({
  name: 'prompt_urls',
  table: 'raw.prompt_urls',
  endpoint: catalogue.getPromptUrls,
  item: PromptUrlItem,
  ...promptWindow,
  row: (u) => ({ ...u, _extra: extraOf(u, PromptUrlItem) }),
});
