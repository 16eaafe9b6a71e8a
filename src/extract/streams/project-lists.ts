import { Action, AliasList, BrandAlias, catalogue, RecordedUrl, RecordedUrlList, Webhook } from '../../api/index.js';
import { field } from '../fetch.js';
import { extraOf, nestExtra } from '../rows.js';
import { listStream, projectKey } from './list-stream.js';
import { projectParents, teamParent } from './parents.js';

const perProject = {
  parents: projectParents,
  params: (parent: { id: string; projectId?: string }) => ({ path: projectKey(parent) }),
  partition: projectKey,
};

/** raw.project_aliases: one row per alias, with the list's brand, limit and remaining capacity. */
export const projectAliasesStream = listStream({
  name: 'project_aliases',
  table: 'raw.project_aliases',
  endpoint: catalogue.listAliases,
  item: BrandAlias,
  pick: field('aliases'),
  ...perProject,
  row: (alias, list) => ({
    brand_name: list?.brand_name ?? null,
    name: alias.name,
    match_type: alias.match_type,
    alias_limit: list?.limit ?? null,
    remaining: list?.remaining ?? null,
    _extra: nestExtra(extraOf(alias, BrandAlias), { _list: list ? extraOf(list, AliasList) : null }),
  }),
});

/** GET actions (every status, no filter) → raw.actions; execution flattened, targets kept as JSON. */
export const actionsStream = listStream({
  name: 'actions',
  table: 'raw.actions',
  endpoint: catalogue.listActions,
  item: Action,
  pick: (raw) => raw,
  ...perProject,
  row: ({ execution, ...a }) => ({
    ...a,
    execution_type: execution.type,
    execution_prompt: execution.prompt,
    execution_skill: execution.skill,
    execution_params: execution.params,
    _extra: extraOf(a, [...Object.keys(Action.shape)]),
  }),
});

/** GET recording → raw.recorded_urls, with the list's total. */
export const recordedUrlsStream = listStream({
  name: 'recorded_urls',
  table: 'raw.recorded_urls',
  endpoint: catalogue.listRecordedUrls,
  item: RecordedUrl,
  pick: field('urls'),
  ...perProject,
  row: (u, list) => ({
    ...u,
    list_total: list?.total ?? null,
    _extra: nestExtra(extraOf(u, RecordedUrl), { _list: list ? extraOf(list, RecordedUrlList) : null }),
  }),
});

/** GET /webhooks (team level) → raw.webhooks. */
export const webhooksStream = listStream({
  name: 'webhooks',
  table: 'raw.webhooks',
  endpoint: catalogue.listWebhooks,
  item: Webhook,
  pick: (raw) => raw,
  parents: teamParent,
  params: () => ({}),
  partition: () => ({}),
  row: (w) => ({ ...w, _extra: extraOf(w, Webhook) }),
});
