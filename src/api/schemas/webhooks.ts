/**
 * Webhook registrations (/webhooks, envelope A) and the bodies the service POSTs: the project bootstrap callback
 * and the action workflow deliveries (signed with `X-Webhook-Signature`, hex HMAC-SHA256 of the raw body).
 */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';

export const WEBHOOK_EVENTS = ['action.checkpoint', 'action.completed', 'action.failed'] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const Webhook = resource({
  id: z.string().describe("prefixed, e.g. 'wh_…'"),
  url: z.string(),
  events: z.array(z.string()),
  is_active: z.boolean(),
  created_at: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;
export const WebhookList = z.array(Webhook);

export const WebhookCreated = Webhook.extend({ secret: z.string().describe('returned once') });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookCreateBody = z.strictObject({
  url: z.url({ protocol: /^https$/, error: 'url must be an HTTPS URL' }),
  events: z.array(WebhookEvent).min(1),
});
export type WebhookCreateBody = z.input<typeof WebhookCreateBody>;

export const WebhookDeleteResult = resource({ id: z.string(), message: z.string() });
export type WebhookDeleteResult = z.infer<typeof WebhookDeleteResult>;

export const WebhookParams = z.object({ webhook_id: z.string().min(1) });

/** POSTed to the `webhook_url` of POST /account/projects when the bootstrap pipeline ends. */
export const BootstrapCallback = resource({
  event: z.literal('project.bootstrap'),
  project_id: Uuid,
  status: z.enum(['completed', 'error']),
  error: z.string().nullable(),
  timestamp: Timestamp,
});
export type BootstrapCallback = z.infer<typeof BootstrapCallback>;

export const CHECKPOINT_OPTION_ACTIONS = ['approve', 'edit', 'regenerate', 'reject'] as const;

export const WorkflowEventData = resource({
  action_id: Uuid,
  workflow_id: Uuid,
  checkpoint: z.string().optional().describe('checkpoint events: outline, draft or final review'),
  content: z.string().optional().describe('checkpoint events'),
  options: z.array(resource({ action: z.string(), label: z.string() })).optional(),
  result: resource({ title: z.string(), content: z.string() }).optional().describe('completed events'),
  error: z.string().optional().describe('failed events'),
});
export const WorkflowDelivery = resource({
  event: WebhookEvent,
  timestamp: Timestamp,
  data: WorkflowEventData,
});
export type WorkflowDelivery = z.infer<typeof WorkflowDelivery>;
