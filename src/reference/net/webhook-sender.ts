/**
 * The one outbound webhook sender of the reference server, for the bootstrap callback (unsigned) and the workflow
 * events (signed): a POST of a JSON body to a target that net/outbound.ts allows (checked before each attempt and
 * inside the connection's DNS lookup), retried after a non-2xx answer, no answer within the timeout or a connection
 * error, after each wait of `backoffMs` slept on the injected Clock. A refused target is not retried.
 */
import { request } from 'undici';
import type { Clock } from '../../core/clock.js';
import { outboundDispatcher, outboundTarget, refusalOf } from './outbound.js';

export interface WebhookAttempt {
  /** 1 for the first attempt. */
  attempt: number;
  /** The receiver's status; null when there was no answer. */
  status: number | null;
  /** Why the target was refused (net/outbound.ts), when it was. */
  refused: string | null;
  /** What went wrong when there was no answer (`refused: …`, `no answer within N ms`, `request failed: Name`). */
  error: string | null;
}

export interface WebhookSend {
  /** Where attempt N goes and its extra headers; null stops (e.g. a webhook deleted or deactivated meanwhile). */
  target: (attempt: number) => { url: string; headers?: Record<string, string> } | null;
  body: string;
  /** Waits before retry 1, 2, …: the number of retries. */
  backoffMs: readonly number[];
  timeoutMs: number;
  /** Read at each attempt: loopback targets over plain HTTP (the server's `--allow-http-webhooks`). */
  allowLoopback: () => boolean;
  clock: Clock;
  /** Stops the waits between attempts (the server's background work stopping). */
  signal?: AbortSignal;
  /** Called after each attempt, before any wait. */
  onAttempt: (attempt: WebhookAttempt) => void;
}

/** Sends until a 2xx answer (true), a refusal, a stop or the last retry (false). */
export async function sendWebhook(send: WebhookSend): Promise<boolean> {
  for (let attempt = 1; attempt <= send.backoffMs.length + 1; attempt++) {
    const target = send.target(attempt);
    if (!target) return false;
    const outcome = await attemptOnce(send, target.url, target.headers ?? {});
    send.onAttempt({ attempt, ...outcome });
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) return true;
    if (outcome.refused) return false;
    const wait = send.backoffMs[attempt - 1];
    if (wait === undefined) return false;
    await send.clock.sleep(wait, send.signal).catch(() => undefined);
    if (send.signal?.aborted) return false;
  }
  return false;
}

async function attemptOnce(
  send: WebhookSend,
  url: string,
  headers: Record<string, string>,
): Promise<Omit<WebhookAttempt, 'attempt'>> {
  const allowLoopback = send.allowLoopback();
  const target = outboundTarget(url, allowLoopback);
  if ('refused' in target) return refusal(target.refused);
  try {
    const res = await request(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'vwh-reference-server', ...headers },
      body: send.body,
      dispatcher: outboundDispatcher(allowLoopback),
      headersTimeout: send.timeoutMs,
      bodyTimeout: send.timeoutMs,
      signal: AbortSignal.timeout(send.timeoutMs),
    });
    await res.body.dump();
    return { status: res.statusCode, refused: null, error: null };
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) return refusal(refused);
    const name = error instanceof Error ? error.name : 'Error';
    const timedOut = /timeout/i.test(name) || /timeout/i.test(String(error));
    return {
      status: null,
      refused: null,
      error: timedOut ? `no answer within ${send.timeoutMs} ms` : `request failed: ${name}`,
    };
  }
}

function refusal(reason: string): Omit<WebhookAttempt, 'attempt'> {
  return { status: null, refused: reason, error: `refused: ${reason}` };
}
