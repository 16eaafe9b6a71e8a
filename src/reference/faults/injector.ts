/**
 * Fault injection at the HTTP and TCP level, in front of the Hono app: a 5xx, a spurious 429 with `Retry-After`,
 * a connection reset (socket destroyed before any byte), a truncated JSON body (full Content-Length, half the
 * bytes, then the socket closes), a slow response; and the contract breaches of a misbehaving API, each a whole
 * response: a body cut half-way (its Content-Length matching), a `null` body, a page past the first answering the
 * first, a list holding its first item twice. Seeded: the same seed and request sequence fire the same faults.
 * Only the services under `/api/` are faulted, never `/_reference/`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { prng } from '../state/ids.js';
import { BASE_PATH, type FaultRule, parseFaultSpec, pickFault } from './spec.js';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

export class FaultInjector {
  private rules: FaultRule[] = [];
  private draw: () => number;
  private spec: string | null = null;
  /** How many times each kind fired (control plane `GET /_reference/faults`). */
  readonly fired: Record<string, number> = {};

  constructor(private readonly seed: number) {
    this.draw = prng(seed);
  }

  set(spec: string | null): void {
    this.rules = spec ? parseFaultSpec(spec) : [];
    this.spec = spec && this.rules.length > 0 ? spec : null;
    this.draw = prng(this.seed);
  }

  describe(): { spec: string | null; fired: Record<string, number> } {
    return { spec: this.spec, fired: { ...this.fired } };
  }

  decide(url: string): FaultRule | null {
    if (this.rules.length === 0) return null;
    const path = url.split('?')[0] ?? '';
    if (!path.startsWith('/api/')) return null;
    // Public API paths are matched relative to its base; the other services' paths as they are.
    const rel = path.startsWith(BASE_PATH) ? path.slice(BASE_PATH.length) : path;
    const rule = pickFault(this.rules, rel, this.draw);
    if (rule) this.fired[rule.kind] = (this.fired[rule.kind] ?? 0) + 1;
    return rule;
  }
}

export function withFaults(listener: NodeListener, injector: FaultInjector): NodeListener {
  return (req, res) => {
    const rule = injector.decide(req.url ?? '/');
    if (!rule) return listener(req, res);
    switch (rule.kind) {
      case 'reset':
        req.socket.destroy();
        return;
      case '5xx':
        return sendJson(res, rule.param, { detail: 'Service temporarily unavailable (injected fault)' });
      case '429':
        return sendJson(
          res,
          429,
          { detail: `Rate limit exceeded. Retry after ${rule.param} seconds.` },
          { 'Retry-After': String(rule.param) },
        );
      case 'slow':
        setTimeout(() => listener(req, res), rule.param);
        return;
      case 'truncate':
        captureBody(res, (body, send) => send(body, Math.floor(body.length / 2)));
        return listener(req, res);
      case 'cut':
        captureBody(res, (body, send) => send(body.subarray(0, Math.floor(body.length / 2))));
        return listener(req, res);
      case 'null':
        return sendJson(res, 200, null);
      case 'dupes':
        captureBody(res, (body, send) => send(Buffer.from(JSON.stringify(withDuplicates(parseOr(body))))));
        return listener(req, res);
      case 'repeat':
        req.url = firstPageOf(req.url ?? '/');
        return listener(req, res);
    }
  };
}

/** The same URL asking for the first page: `page` 1, `offset` 0 (a request for the first page is left as it is). */
export function firstPageOf(url: string): string {
  const parsed = new URL(url, 'http://reference');
  if (parsed.searchParams.has('page')) parsed.searchParams.set('page', '1');
  if (parsed.searchParams.has('offset')) parsed.searchParams.set('offset', '0');
  return parsed.pathname + parsed.search;
}

/** A body whose every list of objects (the data, or a list inside it, two levels down) holds its first item twice. */
export function withDuplicates(body: unknown, depth = 0): unknown {
  if (Array.isArray(body)) {
    const first = body[0];
    return first && typeof first === 'object' ? [first, ...body] : body;
  }
  if (!body || typeof body !== 'object' || depth > 2) return body;
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, withDuplicates(v, depth + 1)]));
}

function parseOr(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/**
 * Buffers the whole response (head and body chunks), then hands the body to `finish`, whose `send` writes the head
 * with the Content-Length of the body it is given and the first `bytes` of it (all by default); fewer bytes than the
 * length destroy the socket after them.
 */
function captureBody(
  res: ServerResponse,
  finish: (body: Buffer, send: (out: Buffer, bytes?: number) => void) => void,
): void {
  const chunks: Buffer[] = [];
  const writeHead = res.writeHead.bind(res);
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  let head: unknown[] | null = null;
  const toBuffer = (chunk: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.from(String(chunk));
  res.writeHead = ((...args: unknown[]) => {
    head = args;
    return res;
  }) as typeof res.writeHead;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    chunks.push(toBuffer(chunk));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown) => {
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(toBuffer(chunk));
    const [status, headers] = (head ?? [res.statusCode, {}]) as [number, Record<string, unknown> | undefined];
    const merged: Record<string, unknown> = { ...(headers ?? {}) };
    for (const key of Object.keys(merged)) if (key.toLowerCase() === 'content-length') delete merged[key];
    res.removeHeader('transfer-encoding');
    res.removeHeader('content-length');
    finish(Buffer.concat(chunks), (out, bytes = out.length) => {
      writeHead(status, { ...merged, 'Content-Length': String(out.length) } as never);
      if (bytes >= out.length) end(out);
      else write(out.subarray(0, bytes), () => res.socket?.destroy());
    });
    return res;
  }) as typeof res.end;
}
