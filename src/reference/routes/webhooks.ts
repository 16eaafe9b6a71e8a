/** Webhooks: register (HTTPS only, secret returned once, 409 on a duplicate URL), list, delete. Admin keys only. */
import type { Hono } from 'hono';
import { ERRORS } from '../../api/index.js';
import { requireAdmin } from '../http/access.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import { outboundTarget } from '../net/outbound.js';
import type { ReferenceState } from '../server/reference-state.js';
import { randomToken } from '../state/ids.js';
import type { WebhookRecord } from '../state/webhooks.js';

function publicView(w: WebhookRecord) {
  return { id: w.id, url: w.url, events: w.events, is_active: w.is_active, created_at: w.created_at };
}

export function registerWebhooks(api: Hono<ApiEnv>, state: ReferenceState): void {
  // The role check comes before the body: a read-only key gets 403 whatever it sends.
  api.on(['POST', 'DELETE'], ['/webhooks', '/webhooks/*'], async (c, next) => {
    requireAdmin(c);
    await next();
  });

  route(
    api,
    state,
    'createWebhook',
    ({ c, body }) => {
      const team = c.get('team');
      const target = outboundTarget(body.url, state.servicesOptions.allowHttpLoopback);
      if ('refused' in target)
        throw rowError(ERRORS.webhookInvalid, `Invalid webhook: url refused (${target.refused})`);
      const href = new URL(body.url).toString();
      if (state.webhooks.ofTeam(team.id).some((w) => w.url === href)) throw rowError(ERRORS.webhookDuplicate);
      const record: WebhookRecord = {
        id: `wh_${state.ids.next('webhook').replace(/-/g, '').slice(0, 24)}`,
        team_id: team.id,
        url: href,
        events: [...new Set(body.events)],
        is_active: true,
        created_at: state.nowIso(),
        secret: `whsec_${randomToken(32)}`,
      };
      state.webhooks.add(record);
      return { ...publicView(record), secret: record.secret };
    },
    { invalidBody: ERRORS.webhookInvalid },
  );

  route(api, state, 'listWebhooks', ({ c }) => state.webhooks.ofTeam(c.get('team').id).map(publicView));

  route(api, state, 'deleteWebhook', ({ c }) => {
    const id = c.req.param('webhook_id') ?? '';
    const hook = state.webhooks.get(id);
    if (!hook || hook.team_id !== c.get('team').id) throw rowError(ERRORS.webhookNotFound);
    state.webhooks.delete(id);
    return { id, message: 'Webhook deleted; delivery stopped' };
  });
}
