/** A standalone `node:http` server on port 0, the way undici's bug reports are written. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, hit: Hit, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  hits: Hit[];
  sockets: number;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const hits: Hit[] = [];
  const state = { sockets: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      hits.push(hit);
      void Promise.resolve(handler(req, res, hit, hits.length - 1)).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  server.on('connection', () => state.sockets++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    get sockets() {
      return state.sockets;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Polls (real time, short steps) until `predicate` holds; fails after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = performance.now();
  while (!predicate()) {
    if (performance.now() - start > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The largest number of arrivals inside any window of `windowMs` (server-side view). */
export function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
