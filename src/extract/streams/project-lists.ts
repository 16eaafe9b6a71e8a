import { Action, catalogue, RecordedUrl, RecordedUrlList, Webhook } from '../../api/index.js';
import { fetchList, field } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { projectParents, teamParent } from './parents.js';
import { mergeExtra } from './projects.js';

/** GET actions (every status, no filter) → raw.actions; execution flattened, targets kept as JSON. */
export const actionsStream: StreamDef = {
  name: 'actions',
  tables: ['raw.actions'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const { items, rejected } = await fetchList(
      ctx,
      catalogue.listActions,
      { path: { project_id: parent.id } },
      Action,
      (r) => r,
    );
    const rows = items.map(({ execution, ...a }) => ({
      ...a,
      project_id: parent.id,
      execution_type: execution.type,
      execution_prompt: execution.prompt,
      execution_skill: execution.skill,
      execution_params: execution.params,
      _extra: extraOf(a, [...Object.keys(Action.shape)]),
    }));
    return { loads: [{ table: 'raw.actions', partition: { equals: { project_id: parent.id } }, rows }], rejected };
  },
};

/** GET recording → raw.recorded_urls. */
export const recordedUrlsStream: StreamDef = {
  name: 'recorded_urls',
  tables: ['raw.recorded_urls'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const { items, data, rejected } = await fetchList(
      ctx,
      catalogue.listRecordedUrls,
      { path: { project_id: parent.id } },
      RecordedUrl,
      field('urls'),
    );
    const listExtra = data ? extraOf(data, RecordedUrlList) : null;
    const rows = items.map((u) => ({
      ...u,
      project_id: parent.id,
      list_total: data?.total ?? null,
      _extra: mergeExtra(extraOf(u, RecordedUrl), listExtra),
    }));
    return {
      loads: [{ table: 'raw.recorded_urls', partition: { equals: { project_id: parent.id } }, rows }],
      rejected,
    };
  },
};

/** GET /webhooks (team level) → raw.webhooks. */
export const webhooksStream: StreamDef = {
  name: 'webhooks',
  tables: ['raw.webhooks'],
  grain: 'snapshot',
  parents: teamParent,
  estimate: () => 1,
  async fetch(ctx) {
    const { items, rejected } = await fetchList(ctx, catalogue.listWebhooks, {}, Webhook, (r) => r);
    const rows = items.map((w) => ({ ...w, _extra: extraOf(w, Webhook) }));
    return { loads: [{ table: 'raw.webhooks', partition: { equals: {} }, rows }], rejected };
  },
};
