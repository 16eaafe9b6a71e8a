import { Action, AliasList, BrandAlias, catalogue, RecordedUrl, RecordedUrlList, Webhook } from '../../api/index.js';
import { defineStream, listRequest, type UnitScope } from '../declare.js';
import { field } from '../fetch.js';
import { extraOf, nestExtra } from '../rows.js';
import { projectKey, projectParents, teamParent } from './parents.js';

/** A snapshot of one list per project: the project is its path and its partition. */
const perProject = { grain: 'snapshot', parents: projectParents } as const;
const projectPath = ({ parent }: UnitScope) => ({ path: projectKey(parent) });
const projectPartition = ({ parent }: UnitScope) => ({ equals: projectKey(parent) });

/** raw.project_aliases: one row per alias, with the list's brand, limit and remaining capacity. */
export const projectAliasesStream = defineStream({
  name: 'project_aliases',
  ...perProject,
  requests: [
    listRequest({
      endpoint: catalogue.listAliases,
      params: projectPath,
      into: { 'raw.project_aliases': projectPartition },
      item: BrandAlias,
      pick: field('aliases'),
      row: (alias, { data: list }) => ({
        brand_name: list?.brand_name ?? null,
        name: alias.name,
        match_type: alias.match_type,
        alias_limit: list?.limit ?? null,
        remaining: list?.remaining ?? null,
        _extra: nestExtra(extraOf(alias, BrandAlias), { _list: list ? extraOf(list, AliasList) : null }),
      }),
    }),
  ],
});

/** GET actions (every status, no filter) → raw.actions; execution flattened, targets kept as JSON. */
export const actionsStream = defineStream({
  name: 'actions',
  ...perProject,
  requests: [
    listRequest({
      endpoint: catalogue.listActions,
      params: projectPath,
      into: { 'raw.actions': projectPartition },
      item: Action,
      pick: (raw) => raw,
      key: (a) => a.id,
      row: ({ execution, ...a }) => ({
        ...a,
        execution_type: execution.type,
        execution_prompt: execution.prompt,
        execution_skill: execution.skill,
        execution_params: execution.params,
        _extra: extraOf(a, Action),
      }),
    }),
  ],
});

/** GET recording → raw.recorded_urls, with the list's total. */
export const recordedUrlsStream = defineStream({
  name: 'recorded_urls',
  ...perProject,
  requests: [
    listRequest({
      endpoint: catalogue.listRecordedUrls,
      params: projectPath,
      into: { 'raw.recorded_urls': projectPartition },
      item: RecordedUrl,
      pick: field('urls'),
      row: (u, { data: list }) => ({
        ...u,
        list_total: list?.total ?? null,
        _extra: nestExtra(extraOf(u, RecordedUrl), { _list: list ? extraOf(list, RecordedUrlList) : null }),
      }),
    }),
  ],
});

/** GET /webhooks (team level) → raw.webhooks. */
export const webhooksStream = defineStream({
  name: 'webhooks',
  grain: 'snapshot',
  parents: teamParent,
  requests: [
    listRequest({
      endpoint: catalogue.listWebhooks,
      params: () => ({}),
      into: { 'raw.webhooks': () => ({ equals: {} }) },
      item: Webhook,
      pick: (raw) => raw,
      row: (w) => ({ ...w, _extra: extraOf(w, Webhook) }),
    }),
  ],
});
