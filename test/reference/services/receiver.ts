/** A local webhook receiver (node:http on port 0) that records every delivery and answers as it is told. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../src/core/clock.js';

export interface Hit {
  headers: IncomingHttpHeaders;
  raw: string;
  /** The injected clock's time when the request arrived. */
  at: number;
}

/** What to do with the n-th request (0-based): answer this status, or hang (never answer). */
export type Plan = (n: number) => number | 'hang';

export interface Receiver {
  /** `https://127.0.0.1:PORT/hook`: registrable through POST /webhooks (HTTPS only), delivered over plain HTTP. */
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

export async function startReceiver(clock: Clock, plan: Plan = () => 200): Promise<Receiver> {
  const hits: Hit[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = hits.length;
      hits.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8'), at: clock.now() });
      const answer = plan(n);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    hits,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The receiver's own check of `X-Webhook-Signature`, written the way a receiver would (not the server's helper):
 * hex HMAC-SHA256 of the raw body, compared in constant time with `crypto.timingSafeEqual`.
 */
export function receiverVerifies(secret: string, raw: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = createHmac('sha256', secret).update(raw, 'utf8').digest();
  const given = Buffer.from(header, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
