/**
 * `vwh events listen`'s HTTP server. `POST /webhooks` takes the signed action events: the body is read raw (413
 * past the size limit), `X-Webhook-Signature` is checked against every accepted secret (rotation) in constant time
 * after a length check, before the body is parsed (401 when missing or wrong); a body whose `timestamp` is further
 * than the tolerance from the receiver's clock is refused (422: a replay of an old signed body), and one that is not
 * UTF-8 too (400: the journal keeps the body as text, which must encode back to the signed bytes); then the event is
 * journaled durably under the SHA-256 of its body and answered 200 (also for a retry or a replay of a body journaled
 * before, which is not stored again: `X-Webhook-Delivery-Id` is not signed, so it is logged and never the key).
 * `POST /bootstrap` takes the unsigned `project.bootstrap` callback, which is only a hint: the next run confirms it
 * with an authenticated request.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import type { Clock } from '../../core/clock.js';
import { closeAfterTheBody } from '../../core/lingering-close.js';
import type { Logger } from '../../core/log.js';
import { bodyKey, type EventJournal } from './journal.js';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const DELIVERY_ID_HEADER = 'x-webhook-delivery-id';
export const ACTION_EVENTS = ['action.checkpoint', 'action.completed', 'action.failed'] as const;

/** How far a signed body's `timestamp` may be from the receiver's clock, by default (`events.maxAgeHours`). */
export const DEFAULT_MAX_AGE_HOURS = 24;

const Timestamp = z.iso.datetime({ offset: true, error: 'timestamp must be an ISO 8601 date-time with a zone' });
const ActionDelivery = z.object({
  event: z.enum(ACTION_EVENTS),
  timestamp: Timestamp,
  data: z.object({ action_id: z.string(), workflow_id: z.string() }).passthrough(),
});
const BootstrapCallback = z.object({
  event: z.literal('project.bootstrap'),
  project_id: z.guid(),
  status: z.enum(['completed', 'error']),
  error: z.string().nullable().optional(),
  timestamp: z.string(),
});

export interface ReceiverOptions {
  host: string;
  port: number;
  secrets: readonly string[];
  journal: EventJournal;
  maxBodyBytes: number;
  /**
   * A signed body whose `timestamp` is further than this from `clock` (past or future) is refused with 422
   * (default DEFAULT_MAX_AGE_HOURS).
   */
  maxAgeMs?: number;
  clock: Clock;
  logger: Logger;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

/** True when `header` is the hex HMAC-SHA256 of `body` under one of `secrets`; every secret is tried. */
export function verifyAny(secrets: readonly string[], body: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{64}$/.test(header.trim())) return false;
  const given = Buffer.from(header.trim(), 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    if (expected.length === given.length && timingSafeEqual(expected, given)) ok = true;
  }
  return ok;
}

/** Why a signed body is too old (or too far ahead) to accept, or undefined when its timestamp is within `maxAgeMs`. */
export function staleness(timestamp: string, now: number, maxAgeMs: number): string | undefined {
  const age = now - Date.parse(timestamp);
  if (Math.abs(age) <= maxAgeMs) return undefined;
  const hours = (ms: number) =>
    Math.abs(ms) >= 48 * 3_600_000
      ? `${Math.round(Math.abs(ms) / 86_400_000)} days`
      : `${Math.round(Math.abs(ms) / 360_000) / 10} h`;
  const tolerance = `the tolerance is ${hours(maxAgeMs)} (events.maxAgeHours, --max-age-hours)`;
  return age > 0
    ? `timestamp ${timestamp} is ${hours(age)} old; ${tolerance}: a replay of an old delivery is refused`
    : `timestamp ${timestamp} is ${hours(age)} ahead of this receiver's clock; ${tolerance}`;
}

class TooLarge extends Error {}

/** Throws on bytes that are not UTF-8, and keeps a leading BOM, so the text encodes back to the exact bytes. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new TooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        reject(new TooLarge());
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startReceiver(o: ReceiverOptions): Promise<Receiver> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') return answer(res, 200, { ok: true });
    if (req.method !== 'POST' || (path !== '/webhooks' && path !== '/bootstrap')) {
      return answer(res, 404, {
        detail: 'POST /webhooks (signed action events) or POST /bootstrap (project callbacks)',
      });
    }
    let body: Buffer;
    try {
      body = await readBody(req, o.maxBodyBytes);
    } catch (error) {
      if (error instanceof TooLarge) {
        // the 413 must reach a client still sending its body: the connection closes after the body, not before
        closeAfterTheBody(req);
        res.setHeader('connection', 'close');
        return answer(res, 413, { detail: `body larger than ${o.maxBodyBytes} bytes` });
      }
      throw error;
    }
    const signed = path === '/webhooks';
    if (signed && !verifyAny(o.secrets, body, req.headers[SIGNATURE_HEADER] as string | undefined)) {
      o.logger.warn('webhook refused: missing or invalid signature', { remote: req.socket.remoteAddress });
      return answer(res, 401, { detail: 'missing or invalid X-Webhook-Signature' });
    }
    // The journal keeps the body as text, which must encode back to the bytes the signature covers: a body that is
    // not UTF-8 (JSON must be) would be stored with U+FFFD in place of its bytes, so it is refused before storing.
    let text: string;
    try {
      text = STRICT_UTF8.decode(body);
    } catch {
      return answer(res, 400, { detail: 'the body is not valid UTF-8 (JSON must be UTF-8); nothing was stored' });
    }
    let parsed: { event: string; timestamp: string };
    try {
      const json: unknown = JSON.parse(text);
      parsed = signed ? ActionDelivery.parse(json) : BootstrapCallback.parse(json);
    } catch (error) {
      return answer(res, 400, {
        detail: `not a ${signed ? 'action event' : 'project.bootstrap callback'}: ${(error as Error).message.slice(0, 200)}`,
      });
    }
    const deliveryId = (req.headers[DELIVERY_ID_HEADER] as string | undefined) ?? null;
    const stale = signed
      ? staleness(parsed.timestamp, o.clock.now(), o.maxAgeMs ?? DEFAULT_MAX_AGE_HOURS * 3_600_000)
      : undefined;
    if (stale) {
      o.logger.warn('webhook refused: timestamp outside the tolerance', {
        event: parsed.event,
        timestamp: parsed.timestamp,
        delivery_id: deliveryId,
      });
      return answer(res, 422, { detail: stale });
    }
    const key = bodyKey(body);
    const stored = o.journal.append({
      event: parsed.event,
      received_at: new Date(o.clock.now()).toISOString(),
      delivery_id: deliveryId,
      signed,
      body: text,
    });
    o.logger.info(stored ? 'webhook journaled' : 'webhook redelivered (already journaled)', {
      event: parsed.event,
      key,
      delivery_id: deliveryId,
    });
    return answer(res, 200, { stored, duplicate: !stored });
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      o.logger.error('webhook receiver failed', { error: (error as Error).message });
      if (!res.headersSent) answer(res, 500, { detail: 'not stored; retry' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${o.host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
