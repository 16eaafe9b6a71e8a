/** Webhook registrations for the action workflow events. Envelope A; read-only keys get 403 on create/delete. */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import {
  WebhookCreateBody,
  WebhookCreated,
  WebhookDeleteResult,
  WebhookList,
  WebhookParams,
} from '../schemas/webhooks.js';

const base = { service: 'public', tag: 'webhooks', envelope: 'A' } as const;

export const webhookEndpoints = {
  createWebhook: defineEndpoint({
    ...base,
    id: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    summary: 'Register an HTTPS URL for action workflow events; the signing secret is returned once.',
    body: WebhookCreateBody,
    successStatus: 201,
    data: WebhookCreated,
    errors: [ERRORS.webhookInvalid, ERRORS.webhookDuplicate, ERRORS.readOnlyKey],
  }),
  listWebhooks: defineEndpoint({
    ...base,
    id: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    summary: 'Registered webhooks (without secrets).',
    data: WebhookList,
  }),
  deleteWebhook: defineEndpoint({
    ...base,
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{webhook_id}',
    summary: 'Delete a webhook; delivery stops immediately.',
    params: WebhookParams,
    data: WebhookDeleteResult,
    errors: [ERRORS.readOnlyKey, ERRORS.webhookNotFound],
  }),
} as const;
