/**
 * `Transport` over an undici `Agent`: keep-alive connections pooled per origin (so the second-document services at
 * another base URL get their own pool), a connection cap, and one deadline per exchange. undici's errors are mapped
 * to `TransportError` kinds so the retry policy never looks at library codes.
 */
import { Agent, type Dispatcher, errors as undiciErrors } from 'undici';
import { timerMs } from '../core/clock.js';
import { type Transport, TransportError, type TransportErrorKind, type TransportRequest } from './transport.js';

export interface UndiciTransportOptions {
  /** Connections per origin (default 8; the client's concurrency should not exceed it). */
  connections?: number;
  /** Idle keep-alive time (default 30 s). */
  keepAliveTimeoutMs?: number;
  /** Default deadline for an exchange when the request sets none (default 30 s). */
  timeoutMs?: number;
}

export class UndiciTransport implements Transport {
  private readonly agent: Agent;
  private readonly defaultTimeoutMs: number;

  constructor(options: UndiciTransportOptions = {}) {
    this.defaultTimeoutMs = options.timeoutMs ?? 30_000;
    this.agent = new Agent({
      connections: options.connections ?? 8,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      keepAliveMaxTimeout: Math.max(options.keepAliveTimeoutMs ?? 30_000, 60_000),
      pipelining: 1,
    });
  }

  async request(req: TransportRequest) {
    const timeoutMs = req.timeoutMs ?? this.defaultTimeoutMs;
    let url: URL;
    try {
      url = new URL(req.url);
    } catch (cause) {
      throw new TransportError('invalid', `invalid URL for ${req.method}`, { cause });
    }
    const where = `${req.method} ${url.pathname}`;
    // The deadline covers the whole exchange, body included: headersTimeout/bodyTimeout alone reset on every chunk.
    // One controller for both the deadline and the caller's signal, linked by hand: AbortSignal.any on a long-lived
    // caller signal keeps a reference per request on older Node versions.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new TransportError('timeout', `timeout after ${timeoutMs} ms`));
    }, timerMs(timeoutMs));
    const onAbort = () => controller.abort(req.signal?.reason);
    if (req.signal?.aborted) onAbort();
    else req.signal?.addEventListener('abort', onAbort, { once: true });
    const signal = controller.signal;
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method as 'GET',
        headers: req.headers,
        body: req.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await readCapped(res, req.maxBytes, where);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { status: res.statusCode, headers, text };
    } catch (error) {
      if (req.signal?.aborted) {
        throw new TransportError('aborted', `${where} aborted`, { cause: req.signal.reason });
      }
      if (timedOut) {
        throw new TransportError('timeout', `${where}: no complete response within ${timeoutMs} ms`, { cause: error });
      }
      if (error instanceof TransportError) throw error;
      throw mapError(error, where);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * The body as text, read chunk by chunk and given up (the socket closed) as soon as it passes `maxBytes`, so an
 * oversized answer costs at most that much memory. A declared Content-Length beyond the cap fails before reading.
 */
async function readCapped(res: Dispatcher.ResponseData, maxBytes: number | undefined, where: string): Promise<string> {
  if (maxBytes === undefined) return res.body.text();
  const tooLarge = (size: string) => {
    // Destroying the body aborts the request; the abort is the intended end here, not an error to surface.
    res.body.on('error', () => {});
    res.body.destroy();
    return new TransportError(
      'too-large',
      `${where}: the response body is ${size}, above the cap of ${maxBytes} bytes`,
    );
  };
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(`${declared} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw tooLarge(`more than ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

const kindByCode: Record<string, TransportErrorKind> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  UND_ERR_SOCKET: 'reset',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_CLOSED: 'reset',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'truncated',
  ECONNREFUSED: 'connect',
  ENOTFOUND: 'connect',
  EAI_AGAIN: 'connect',
  EHOSTUNREACH: 'connect',
  ENETUNREACH: 'connect',
  UND_ERR_INVALID_ARG: 'invalid',
  UND_ERR_ABORTED: 'aborted',
};

function mapError(error: unknown, where: string): TransportError {
  const code = findCode(error);
  let kind: TransportErrorKind = (code && kindByCode[code]) || 'other';
  if (kind === 'other' && error instanceof undiciErrors.HTTPParserError) kind = 'truncated';
  const detail = error instanceof Error ? error.message : String(error);
  return new TransportError(kind, `${where}: ${kind} (${code ?? 'no code'}: ${detail})`, {
    cause: error,
    sourceCode: code,
  });
}

/** undici wraps socket errors; the useful code may be on the error or on its cause. */
function findCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
