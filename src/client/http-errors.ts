/**
 * What a non-2xx response means for the caller (spec "Errors"): which `VwhError` it becomes, and whether it is
 * worth another attempt. Messages quote the API's own `detail` and name the method and path; never a header value.
 */
import { ExitCode, redact, VwhError, type VwhErrorCode } from '../core/errors.js';

export interface ResponseFacts {
  method: string;
  /** Path and query of the request (no host, no key). */
  path: string;
  status: number;
  /** The API's own explanation: `detail`, an alias `code`, a content-service `error.message`, or the raw text. */
  detail: string | undefined;
  /** Alias and content errors carry a stable code. */
  apiCode: string | undefined;
}

/** The authentication failures of the spec, matched on the `detail` text (401 rows). */
const AUTH_DETAILS: ReadonlyArray<[RegExp, VwhErrorCode, string]> = [
  [/missing x-api-key/i, 'AUTH_MISSING_KEY', 'give the sync an API key of your team'],
  [/inactive/i, 'AUTH_INACTIVE_KEY', 'a team admin disabled this key; create a new key and use it instead'],
  [/expired/i, 'AUTH_EXPIRED_KEY', 'create a new key (POST /account/api-key or the dashboard) and use it instead'],
  [/invalid api key/i, 'AUTH_INVALID_KEY', 'check that the whole key was copied; keys are shown only once'],
];

/** 401 on a request that carried a key (or needed one): the key is refused and the run must stop (exit code 3). */
export function authError(facts: ResponseFacts, keyPrefix: string | undefined): VwhError {
  const detail = facts.detail ?? 'Unauthorized';
  const match = AUTH_DETAILS.find(([pattern]) => pattern.test(detail));
  const code = match?.[1] ?? 'AUTH_INVALID_KEY';
  const hint = match?.[2] ?? 'check the key';
  const which = keyPrefix ? ` (key ${keyPrefix}…)` : '';
  return new VwhError(code, `The API refused the key${which}: "${detail}" on ${facts.method} ${facts.path}. ${hint}.`, {
    exitCode: ExitCode.auth,
    details: factsDetails(facts),
  });
}

/** 400/403/404/409/422 and quota 429s: the request itself is wrong; another attempt would get the same answer. */
export function clientError(facts: ResponseFacts): VwhError {
  const what = facts.detail ?? 'no detail given';
  return new VwhError('HTTP_CLIENT_ERROR', `${facts.method} ${facts.path} answered ${facts.status}: ${what}`, {
    details: factsDetails(facts),
  });
}

/** 5xx after the retries are spent. */
export function serverError(facts: ResponseFacts, attempts: number): VwhError {
  const what = facts.detail ?? 'no detail given';
  return new VwhError(
    'HTTP_SERVER_ERROR',
    `${facts.method} ${facts.path} answered ${facts.status} (${what}) on each of ${attempts} attempts; the API may be down, try again later`,
    { details: { ...factsDetails(facts), attempts } },
  );
}

/**
 * A 429 is the rate limiter when it says so (header `Retry-After`, or the spec's detail wording). Quota 429s
 * (prompt quota, competitor or alias limit) carry neither and are not retried.
 */
export function isRateLimit(status: number, headers: Record<string, string>, detail: string | undefined): boolean {
  if (status !== 429) return false;
  return headers['retry-after'] !== undefined || /rate limit exceeded/i.test(detail ?? '');
}

/** Pulls the explanation out of an error body; tolerant of every error shape the two spec documents use. */
export function readErrorBody(text: string): { detail: string | undefined; apiCode: string | undefined } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    return { detail: trimmed ? redact(trimmed.slice(0, 200)) : undefined, apiCode: undefined };
  }
  if (!body || typeof body !== 'object') return { detail: undefined, apiCode: undefined };
  const b = body as Record<string, unknown>;
  const nested = b.error && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : undefined;
  const detail = str(b.detail) ?? str(nested?.message) ?? str(b.message) ?? str(b.code) ?? str(nested?.code);
  const apiCode = str(b.code) ?? str(nested?.code);
  return { detail, apiCode };
}

function factsDetails(facts: ResponseFacts): Record<string, unknown> {
  return {
    status: facts.status,
    method: facts.method,
    path: facts.path,
    detail: facts.detail,
    apiCode: facts.apiCode,
  };
}

/** Error text comes from the server: redacted in case it echoes the key back. */
function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? redact(value) : undefined;
}
