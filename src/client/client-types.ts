/** The shapes of the client's public API: options, call parameters and results, raw requests, statistics. */
import type * as z from 'zod';
import type { BodyInput, EndpointDef, ParamsOf, QueryInput, Service } from '../api/endpoint.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { RateBudget } from './rate-budget.js';
import type { Transport } from './transport.js';

export interface BackoffOptions {
  /** First retry delay before jitter (default 500 ms). */
  minMs?: number;
  /** Cap on one delay (default 30 s). */
  maxMs?: number;
  /** Growth per retry (default 2). */
  factor?: number;
}

export interface ApiClientOptions {
  /** `{base_url}` of the spec: scheme, host and port; each endpoint's base path (`/api/public/v1`) is appended. */
  baseUrl: string;
  /** The second document's services when they live at another address ("Base address: not shown"). */
  serviceBaseUrls?: Partial<Record<Service, string>>;
  /** Sent as `X-API-Key` on endpoints that need it; registered with `redact` so it never reaches a log. */
  apiKey?: string;
  /** Default: an `UndiciTransport` with keep-alive connections, closed by `close()`. */
  transport?: Transport;
  /** The key's rate budget. Default: 70 per 60 s on `clock`, not persisted. */
  budget?: RateBudget;
  clock?: Clock;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Deadline of one attempt (default 30 s). */
  timeoutMs?: number;
  /** Retries after 5xx, transport failures and unparsable bodies (default 5). 429s do not use them up. */
  retries?: number;
  /** Rate-limit 429s one call may meet before it fails with `BUDGET_EXHAUSTED` (default 10). */
  max429?: number;
  /**
   * Longest `Retry-After` (429 or 503) honoured, in ms (default 300 000, as dlt): a longer one fails the call at once
   * with `RETRY_AFTER_TOO_LONG` rather than holding the warehouse for an hour.
   */
  maxRetryAfterMs?: number;
  /**
   * Largest response body read (default 64 MiB): a larger one fails its call with RESPONSE_TOO_LARGE, not retried,
   * after reading no more than this.
   */
  maxResponseBytes?: number;
  backoff?: BackoffOptions;
  /** Jitter source, in [0, 1) (default Math.random). */
  random?: () => number;
  logger?: Logger;
  /** Looks up `call('listProjects')`-style string ids (default: the contract's catalogue). */
  endpoints?: Readonly<Record<string, EndpointDef>>;
  userAgent?: string;
}

export interface CallParams<E extends EndpointDef = EndpointDef> {
  path?: ParamsOf<E>;
  query?: QueryInput<E>;
  body?: BodyInput<E> | Record<string, unknown> | unknown[];
  signal?: AbortSignal;
}

interface ResponseMeta {
  status: number;
  headers: Record<string, string>;
  /** The whole parsed body (envelope included). */
  body: unknown;
  /** The envelope's `data` before schema parsing (undefined when the envelope itself did not fit). */
  raw: unknown;
}

/** Success with a body that fits the contract: `data` parsed (defaults applied, extra fields kept). */
export interface CallOk<T> extends ResponseMeta {
  ok: true;
  data: T;
  issues: [];
}
/** Success status, but the body drifted from the contract: `raw` holds what came, `issues` what did not fit. */
export interface CallDrift extends ResponseMeta {
  ok: false;
  data: undefined;
  issues: z.core.$ZodIssue[];
}
export type CallResult<T> = CallOk<T> | CallDrift;

export interface RawRequest {
  method: string;
  /** Absolute path on the service's host, base path included: `/api/public/v1/projects`. */
  path: string;
  query?: object;
  body?: unknown;
  /** Which host (`serviceBaseUrls`); default the public API's `baseUrl`. */
  service?: Service;
  /** Send `X-API-Key` (default true). */
  auth?: boolean;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON; undefined for an empty body. */
  body: unknown;
}

export interface ClientStats {
  /** Attempts that went out (retries included). */
  requests: number;
  /** Calls that ended with a success status. */
  succeeded: number;
  /** Calls that ended with an error. */
  failed: number;
  /** Rate-limit 429 responses received. */
  rateLimited: number;
  retries: number;
  /** Time at least one request waited for the budget or a Retry-After. */
  budgetWaitMs: number;
  /** Sum of backoff delays slept before retries. */
  backoffMs: number;
  /** Rate-limit entries added because another user of the key was seen. */
  phantoms: number;
  /** `X-Credit-Available` of the latest response that had it (research credits left this month). */
  creditsAvailable: number | undefined;
}
