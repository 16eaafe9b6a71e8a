/**
 * Delivery of workflow events to a team's webhooks (spec, Delivery rules): a POST of the JSON body, signed in
 * `X-Webhook-Signature`, with a delivery id that stays the same across retries (`X-Webhook-Delivery-Id`) so
 * receivers can be idempotent. A non-2xx answer, no answer within the timeout, or a connection error is retried up
 * to 3 times after the backoff waits, slept on the injected Clock. A webhook deleted or deactivated meanwhile gets
 * no further attempt. Where it may go is http/outbound.ts's rule (no private targets, loopback only behind
 * `allowHttpLoopback`); a refused target is not retried.
 */
import { request } from 'undici';
import type { Clock } from '../../../core/clock.js';
import { outboundDispatcher, outboundTarget, refusalOf } from '../../http/outbound.js';
import type { WebhookRecord } from '../../state/webhooks.js';
import type { ServicesOptions } from '../options.js';
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
  const backoff = ctx.options().retryBackoffMs;
  for (let attempt = 1; attempt <= backoff.length + 1; attempt++) {
    const live = ctx.current(hook.id);
    if (!live?.is_active) break;
    const outcome = await attemptOnce(ctx, live, record, rawBody, attempt);
    record.attempts.push({ attempt, at: ctx.nowIso(), ...outcome });
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      record.delivered = true;
      break;
    }
    if (outcome.error?.startsWith('refused')) break;
    const wait = backoff[attempt - 1];
    if (wait === undefined) break;
    await ctx.clock.sleep(wait);
  }
  record.done = true;
}

async function attemptOnce(
  ctx: DeliveryContext,
  hook: WebhookRecord,
  record: DeliveryRecord,
  rawBody: string,
  attempt: number,
): Promise<{ status: number | null; error: string | null }> {
  const allowLoopback = ctx.options().allowHttpLoopback;
  const target = outboundTarget(hook.url, allowLoopback);
  if ('refused' in target) return { status: null, error: `refused: ${target.refused}` };
  const timeout = ctx.options().deliveryTimeoutMs;
  try {
    const res = await request(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'vwh-reference-server',
        [SIGNATURE_HEADER]: sign(hook.secret, rawBody),
        [DELIVERY_ID_HEADER]: record.delivery_id,
        'x-webhook-event': record.event,
        'x-webhook-attempt': String(attempt),
      },
      body: rawBody,
      dispatcher: outboundDispatcher(allowLoopback),
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: AbortSignal.timeout(timeout),
    });
    await res.body.dump();
    return { status: res.statusCode, error: null };
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) return { status: null, error: `refused: ${refused}` };
    const name = error instanceof Error ? error.name : 'Error';
    const timedOut = /timeout/i.test(name) || /timeout/i.test(String(error));
    return { status: null, error: timedOut ? `no answer within ${timeout} ms` : `request failed: ${name}` };
  }
}
