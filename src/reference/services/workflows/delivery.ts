/**
 * Delivery of workflow events to a team's webhooks (spec, Delivery rules): a POST of the JSON body, signed in
 * `X-Webhook-Signature`, with a delivery id that stays the same across retries (`X-Webhook-Delivery-Id`) so
 * receivers can be idempotent. Sent by the server's one webhook sender (net/webhook-sender.ts: retries after the
 * backoff waits on the injected Clock, net/outbound.ts's targets only, a refused target not retried); a webhook
 * deleted or deactivated meanwhile gets no further attempt.
 */
import type { Clock } from '../../../core/clock.js';
import { sendWebhook } from '../../net/webhook-sender.js';
import type { ServicesOptions } from '../../state/services-options.js';
import type { WebhookRecord } from '../../state/webhooks.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, sign } from './signature.js';

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  delivery_id: string;
  webhook_id: string;
  event: string;
  attempts: DeliveryAttempt[];
  delivered: boolean;
  /** Set once no further attempt will be made. */
  done: boolean;
}

export interface DeliveryContext {
  clock: Clock;
  nowIso: () => string;
  options: () => ServicesOptions;
  /** The webhook as registered now (undefined once deleted). */
  current: (id: string) => WebhookRecord | undefined;
}

export async function deliver(
  ctx: DeliveryContext,
  hook: WebhookRecord,
  record: DeliveryRecord,
  rawBody: string,
): Promise<void> {
  record.delivered = await sendWebhook({
    target: (attempt) => {
      const live = ctx.current(hook.id);
      if (!live?.is_active) return null;
      return {
        url: live.url,
        headers: {
          [SIGNATURE_HEADER]: sign(live.secret, rawBody),
          [DELIVERY_ID_HEADER]: record.delivery_id,
          'x-webhook-event': record.event,
          'x-webhook-attempt': String(attempt),
        },
      };
    },
    body: rawBody,
    backoffMs: ctx.options().retryBackoffMs,
    timeoutMs: ctx.options().deliveryTimeoutMs,
    allowLoopback: () => ctx.options().allowHttpLoopback,
    clock: ctx.clock,
    onAttempt: ({ attempt, status, error }) => record.attempts.push({ attempt, at: ctx.nowIso(), status, error }),
  });
  record.done = true;
}
