/**
 * The brand-visibility API as the sync sees it: `call(endpoint, {path, query, body})` sends one catalogue request
 * through the key's rate budget, retries what is worth retrying, unwraps the envelope and parses `data` with the
 * endpoint's schema without ever throwing on drift. `request` is the same pipeline without the catalogue.
 *
 * Every attempt (retries included) waits for a slot in the budget and a place in the concurrency queue. Retries:
 * 429 (rate limit) after its `Retry-After` in full; 5xx, resets, timeouts and unparsable bodies after a jittered
 * exponential backoff slept on the injected clock. 401 stops the client for good (`AUTH_*`, exit code 3); other
 * 4xx fail at once with the API's detail.
 */
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { type Catalogue, catalogue, type EndpointId } from '../api/catalogue.js';
import type { DataOf, EndpointDef, Service } from '../api/endpoint.js';
import { encodeQuery, fullPath } from '../api/paths.js';
import { type Clock, systemClock } from '../core/clock.js';
import { registerSecret, VwhError } from '../core/errors.js';
import { type Logger, silentLogger } from '../core/log.js';
import { keyIdFor } from './budget-store.js';
import type {
  ApiClientOptions,
  BackoffOptions,
  CallParams,
  CallResult,
  ClientStats,
  RawRequest,
  RawResponse,
} from './client-types.js';
import { decodeEnvelope } from './envelope.js';
import { authError, clientError, isRateLimit, type ResponseFacts, readErrorBody, serverError } from './http-errors.js';
import { RateBudget } from './rate-budget.js';
import { DEFAULT_MAX_RETRY_AFTER_MS, retryAfterMs } from './retry-after.js';
import { type Transport, TransportError } from './transport.js';
import { UndiciTransport } from './undici-transport.js';
import { WaitEmitter, type WaitListener } from './wait-events.js';

export type {
  ApiClientOptions,
  BackoffOptions,
  CallDrift,
  CallOk,
  CallParams,
  CallResult,
  ClientStats,
  RawRequest,
  RawResponse,
} from './client-types.js';

/** Thrown inside the retry loop only; turned into `VwhError`s when the retries run out. */
class RetrySignal extends Error {
  constructor(
    readonly kind: 'rate-limit' | 'server' | 'transport' | 'body',
    message: string,
    readonly facts?: ResponseFacts,
    options?: { cause?: unknown },
    /** A 503 may say when to come back; the backoff waits at least that long. */
    readonly retryAfterMs?: number,
  ) {
    super(message, options);
    this.name = 'RetrySignal';
  }
}

/** 64 MiB: a month of chats of a busy prompt is a few megabytes; beyond this something is wrong upstream. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export class ApiClient {
  readonly budget: RateBudget;
  readonly keyId: string | undefined;
  private readonly baseUrl: string;
  private readonly serviceBaseUrls: Partial<Record<Service, string>>;
  private readonly apiKey: string | undefined;
  private readonly transport: Transport;
  private readonly ownsTransport: boolean;
  private readonly clock: Clock;
  private readonly queue: PQueue;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly retries: number;
  private readonly max429: number;
  private readonly maxRetryAfterMs: number;
  private readonly backoff: Required<BackoffOptions>;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly endpoints: Readonly<Record<string, EndpointDef>>;
  private readonly userAgent: string;
  private readonly waits = new WaitEmitter();
  private fatal: VwhError | undefined;
  private creditsAvailable: number | undefined;
  /** The `Date` header of the first response: the API's own clock. */
  private firstDate: number | undefined;
  private closing: Promise<void> | undefined;
  private readonly counters = { requests: 0, succeeded: 0, failed: 0, rateLimited: 0, retries: 0, backoffMs: 0 };

  constructor(options: ApiClientOptions) {
    this.baseUrl = trimSlash(options.baseUrl);
    this.serviceBaseUrls = Object.fromEntries(
      Object.entries(options.serviceBaseUrls ?? {}).map(([k, v]) => [k, trimSlash(v)]),
    );
    this.apiKey = options.apiKey || undefined;
    registerSecret(this.apiKey);
    this.keyId = this.apiKey ? keyIdFor(this.apiKey) : undefined;
    this.clock = options.clock ?? systemClock;
    this.budget = options.budget ?? new RateBudget({ clock: this.clock });
    const concurrency = Math.max(1, options.concurrency ?? 4);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.ownsTransport = !options.transport;
    this.transport =
      options.transport ?? new UndiciTransport({ connections: concurrency * 2, timeoutMs: this.timeoutMs });
    this.queue = new PQueue({ concurrency });
    this.retries = options.retries ?? 5;
    this.max429 = options.max429 ?? 10;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    this.backoff = { minMs: 500, maxMs: 30_000, factor: 2, ...options.backoff };
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? silentLogger;
    this.endpoints = options.endpoints ?? catalogue;
    this.userAgent = options.userAgent ?? 'visibility-warehouse';
    this.budget.onWait((event) => this.waits.emit(event));
  }

  /**
   * One catalogue endpoint. Resolves with the parsed `data` (`ok: true`) or, when the body drifted from the
   * contract, with `ok: false`, the raw `data` and the zod issues. Rejects with a `VwhError` for errors:
   * `AUTH_*` (401, exit code 3), `HTTP_CLIENT_ERROR` (other 4xx), `HTTP_SERVER_ERROR` / `HTTP_TRANSPORT` (retries
   * spent), `BUDGET_EXHAUSTED` (429 after 429).
   */
  async call<E extends EndpointDef>(endpoint: E, params?: CallParams<E>): Promise<CallResult<DataOf<E>>>;
  async call<Id extends EndpointId>(
    endpoint: Id,
    params?: CallParams<Catalogue[Id]>,
  ): Promise<CallResult<DataOf<Catalogue[Id]>>>;
  async call(endpoint: string, params?: CallParams): Promise<CallResult<unknown>>;
  async call(endpoint: EndpointDef | string, params: CallParams = {}): Promise<CallResult<unknown>> {
    const def = typeof endpoint === 'string' ? this.endpoints[endpoint] : endpoint;
    if (!def) throw new VwhError('INTERNAL', `unknown endpoint id ${String(endpoint)}`);
    let path: string;
    try {
      path = fullPath(def, params.path ?? {});
    } catch (cause) {
      throw new VwhError('INTERNAL', cause instanceof Error ? cause.message : String(cause), { cause });
    }
    const res = await this.request({
      method: def.method,
      path,
      query: params.query as object | undefined,
      body: params.body,
      service: def.service,
      auth: def.auth,
      signal: params.signal,
    });
    const meta = { status: res.status, headers: res.headers, body: res.body };
    const decoded = decodeEnvelope(def.envelope, res.body);
    if (!decoded.ok) return { ok: false, data: undefined, raw: undefined, issues: [decoded.issue], ...meta };
    const parsed = def.data.safeParse(decoded.data);
    if (!parsed.success) {
      return { ok: false, data: undefined, raw: decoded.data, issues: parsed.error.issues, ...meta };
    }
    return { ok: true, data: parsed.data, raw: decoded.data, issues: [], ...meta };
  }

  /** Any request, through the same budget, queue, retries and error mapping; the body is JSON-parsed, not checked. */
  async request(req: RawRequest): Promise<RawResponse> {
    if (this.fatal) throw this.fatal;
    const query = req.query ? encodeQuery(req.query) : '';
    const target = `${req.path}${query ? `?${query}` : ''}`;
    const base = (req.service && this.serviceBaseUrls[req.service]) || this.baseUrl;
    const url = `${base}${target}`;
    const method = req.method.toUpperCase();
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (req.auth !== false && this.apiKey) headers['x-api-key'] = this.apiKey;
    const signal = req.signal;
    let rateLimited = 0;
    let attempts = 0;

    const attempt = async (): Promise<RawResponse> => {
      if (this.fatal) throw new AbortError(this.fatal);
      attempts++;
      const permit = await this.budget.acquire(signal);
      if (this.fatal) {
        permit.release();
        throw new AbortError(this.fatal);
      }
      this.counters.requests++;
      const started = this.clock.now();
      let res: Awaited<ReturnType<Transport['request']>>;
      try {
        res = await this.transport.request({
          method,
          url,
          headers,
          body,
          signal,
          timeoutMs: this.timeoutMs,
          maxBytes: this.maxResponseBytes,
        });
      } catch (error) {
        permit.release();
        if (error instanceof TransportError && error.kind === 'too-large') {
          throw new AbortError(
            new VwhError(
              'RESPONSE_TOO_LARGE',
              `${method} ${target}: ${error.message.replace(/^[^:]*: /, '')} (maxResponseBytes): its unit fails and the ` +
                'sync goes on; raise --max-response-bytes (or maxResponseBytes in vwh.config.json) or ask for less ' +
                '(a later --since, fewer --top-domains)',
              { details: { method, path: target, maxResponseBytes: this.maxResponseBytes } },
            ),
          );
        }
        if (error instanceof TransportError && error.retryable) {
          throw new RetrySignal('transport', error.message, undefined, { cause: error });
        }
        throw new AbortError(error instanceof Error ? error : new Error(String(error)));
      }
      permit.release();
      this.logger.debug('api request', { method, path: target, status: res.status, ms: this.clock.now() - started });
      return this.interpret(method, target, res, headers['x-api-key'] !== undefined, permit.sentAt);
    };

    try {
      const result = await pRetry(() => this.queue.add(attempt, signal ? { signal } : {}), {
        retries: this.retries,
        minTimeout: 0,
        signal,
        shouldConsumeRetry: ({ error }) => !(error instanceof RetrySignal && error.kind === 'rate-limit'),
        shouldRetry: async ({ error, retriesConsumed }) => {
          if (!(error instanceof RetrySignal)) return false;
          if (error.kind === 'rate-limit') {
            rateLimited++;
            // The budget already holds every request back until Retry-After has passed.
            return rateLimited <= this.max429;
          }
          const delay = Math.max(this.backoffDelay(retriesConsumed), error.retryAfterMs ?? 0);
          this.counters.retries++;
          this.logger.warn('api retry', { method, path: target, reason: error.message, delayMs: delay });
          this.waits.emit({ reason: 'backoff', ms: delay, until: this.clock.now() + delay });
          this.counters.backoffMs += delay;
          await this.clock.sleep(delay, signal);
          return true;
        },
      });
      this.counters.succeeded++;
      return result;
    } catch (error) {
      this.counters.failed++;
      if (signal?.aborted) throw signal.reason;
      throw this.finalError(error, method, target, attempts);
    }
  }

  /** The API's current UTC day, from the `Date` header of its first response (undefined before one, or without it). */
  apiDay(): string | undefined {
    return this.firstDate === undefined ? undefined : new Date(this.firstDate).toISOString().slice(0, 10);
  }

  /** Progress display hook: every wait (budget, Retry-After, backoff) as it starts. Returns the unsubscribe. */
  onWait(listener: WaitListener): () => void {
    return this.waits.on(listener);
  }

  stats(): ClientStats {
    const budget = this.budget.stats();
    return {
      ...this.counters,
      budgetWaitMs: budget.waitMs,
      phantoms: budget.phantoms,
      creditsAvailable: this.creditsAvailable,
    };
  }

  /** Waits for queued work, saves the budget, and closes the transport if the client created it. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.queue.onIdle();
      await this.budget.flush();
      if (this.ownsTransport) await this.transport.close();
    })();
    return this.closing;
  }

  private interpret(
    method: string,
    target: string,
    res: Awaited<ReturnType<Transport['request']>>,
    sentKey: boolean,
    sentAt: number,
  ): RawResponse {
    const { status, headers, text } = res;
    if (this.firstDate === undefined && headers.date) {
      const ms = Date.parse(headers.date);
      if (Number.isFinite(ms)) this.firstDate = ms;
    }
    const credits = Number(headers['x-credit-available']);
    if (headers['x-credit-available'] !== undefined && Number.isFinite(credits)) this.creditsAvailable = credits;
    if (status >= 200 && status < 300) {
      this.budget.observe(headers, sentAt);
      let body: unknown;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch (cause) {
          // JSON cut short is worth another attempt; a whole body of something else (a proxy's HTML page, a wrong
          // base URL) would come back the same.
          if (!startsLikeJson(text, headers['content-type'])) {
            throw new AbortError(notJsonError(method, target, status, headers['content-type'], text));
          }
          throw new RetrySignal('body', `${method} ${target}: ${status} with a truncated JSON body`, undefined, {
            cause,
          });
        }
      }
      return { status, headers, text, body };
    }
    const { detail, apiCode } = readErrorBody(text);
    const facts: ResponseFacts = { method, path: target, status, detail, apiCode };
    if (isRateLimit(status, headers, detail)) {
      this.counters.rateLimited++;
      const asked = retryAfterMs(headers['retry-after'], detail, this.clock.now());
      if (asked !== undefined && asked > this.maxRetryAfterMs) {
        throw new AbortError(this.retryAfterTooLong(facts, headers['retry-after'] ?? detail ?? '', asked));
      }
      const wait = asked ?? this.budget.windowMs;
      this.budget.block(wait);
      this.logger.warn('api rate limited', { method, path: target, retryAfterMs: wait });
      throw new RetrySignal('rate-limit', `${method} ${target}: 429 ${detail ?? ''}`.trim(), facts);
    }
    this.budget.observe(headers, sentAt);
    if (status >= 500) {
      const after = retryAfterMs(headers['retry-after'], undefined, this.clock.now());
      if (after !== undefined && after > this.maxRetryAfterMs) {
        throw new AbortError(this.retryAfterTooLong(facts, headers['retry-after'] ?? '', after));
      }
      throw new RetrySignal('server', `${method} ${target}: ${status} ${detail ?? ''}`.trim(), facts, {}, after);
    }
    // A 401 on a request that carried the key (or needed one) refuses the key: nothing else will work either.
    if (status === 401 && (sentKey || /missing x-api-key/i.test(detail ?? ''))) {
      const prefix = sentKey && this.apiKey && this.apiKey.length > 16 ? this.apiKey.slice(0, 12) : undefined;
      this.fatal = authError(facts, prefix);
      throw new AbortError(this.fatal);
    }
    throw new AbortError(clientError(facts));
  }

  /** A wait beyond the cap fails this call only: the sync goes on with other units and the next run fetches it. */
  private retryAfterTooLong(facts: ResponseFacts, value: string, ms: number): VwhError {
    const cap = this.maxRetryAfterMs / 1000;
    return new VwhError(
      'RETRY_AFTER_TOO_LONG',
      `${facts.method} ${facts.path} answered ${facts.status} with Retry-After: ${value.slice(0, 60)} ` +
        `(${formatSeconds(ms / 1000)}), longer than the ${formatSeconds(cap)} this sync waits ` +
        '(maxRetryAfterSeconds in vwh.config.json, --max-retry-after); not waited for, the next run fetches it again',
      {
        details: { ...facts, retryAfter: value.slice(0, 60), retryAfterMs: ms, maxRetryAfterMs: this.maxRetryAfterMs },
      },
    );
  }

  private finalError(error: unknown, method: string, target: string, attempts: number): unknown {
    if (error instanceof VwhError) return error;
    if (!(error instanceof RetrySignal)) return error;
    if (error.kind === 'rate-limit') {
      return new VwhError(
        'BUDGET_EXHAUSTED',
        `${method} ${target} was rate-limited ${this.max429 + 1} times in a row although every Retry-After was honoured: ` +
          'another user of the key is taking the budget; lower the budget share or run later',
        { details: { method, path: target, attempts } },
      );
    }
    if (error.kind === 'server' && error.facts) return serverError(error.facts, attempts);
    const what = error.kind === 'body' ? 'answered with a truncated JSON body' : 'failed below HTTP';
    return new VwhError(
      'HTTP_TRANSPORT',
      `${method} ${target} ${what} on each of ${attempts} attempts (last: ${error.message}); check the network or the API`,
      { cause: error.cause ?? error, details: { method, path: target, attempts, kind: error.kind } },
    );
  }

  /** Exponential backoff with full jitter over the upper half: [d/2, d) where d = min·factor^n, capped. */
  private backoffDelay(retriesConsumed: number): number {
    const base = Math.min(this.backoff.maxMs, this.backoff.minMs * this.backoff.factor ** retriesConsumed);
    return Math.round(base / 2 + (base / 2) * this.random());
  }
}

// In retry-after.ts so that `vwh sync --help` can show it without loading the client.
export { DEFAULT_MAX_RETRY_AFTER_MS } from './retry-after.js';

function formatSeconds(seconds: number): string {
  return seconds >= 3600 * 24 * 365
    ? `${Math.round(seconds / (3600 * 24 * 365))} years`
    : seconds >= 3600
      ? `${Math.round((seconds / 3600) * 10) / 10} h`
      : `${Math.round(seconds * 10) / 10} s`;
}

/** A JSON document (object or array) that may have been cut short, as opposed to a body of another kind. */
function startsLikeJson(text: string, contentType: string | undefined): boolean {
  if (contentType && !/json/i.test(contentType)) return false;
  return /^\s*[[{]/.test(text);
}

function notJsonError(
  method: string,
  target: string,
  status: number,
  contentType: string | undefined,
  text: string,
): VwhError {
  const head = text.trim().slice(0, 80).replace(/\s+/g, ' ');
  const html = /html/i.test(contentType ?? '') || /^<(!doctype html|html|head|body)/i.test(head);
  const type = contentType ? `Content-Type ${contentType.slice(0, 80)}` : 'no Content-Type';
  return new VwhError(
    'HTTP_NOT_JSON',
    `${method} ${target} answered ${status} with ${type} and ${html ? 'an HTML page' : 'a body that is not JSON'} ` +
      `(it begins "${head}${text.trim().length > 80 ? '…' : ''}"): check that the base URL points at the API, not a ` +
      'web page or a proxy; not retried, since the same page would come back',
    { details: { method, path: target, status, contentType, html } },
  );
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
