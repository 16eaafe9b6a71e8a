/**
 * One error type for the whole tool: a stable `code`, a message a person can act on, and the process exit code
 * the CLI maps it to. Messages never contain an API key (see `redact`).
 */
export const ExitCode = {
  ok: 0,
  /** Unexpected failure: a bug or an environment problem the message names. */
  failure: 1,
  /** The run finished but part of it was rejected or skipped (rejected rows, failed audits with severity warn...). */
  partial: 2,
  /** The API refused the key (missing, invalid, inactive, expired). Nothing was written. */
  auth: 3,
  /** The warehouse file is locked by another process. */
  dbLocked: 4,
  /** Bad command-line arguments or configuration. */
  usage: 64,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export type VwhErrorCode =
  | 'AUTH_MISSING_KEY'
  | 'AUTH_INVALID_KEY'
  | 'AUTH_INACTIVE_KEY'
  | 'AUTH_EXPIRED_KEY'
  | 'BUDGET_EXHAUSTED'
  | 'CONFIG_INVALID'
  | 'USAGE'
  | 'DB_LOCKED'
  | 'DB_ERROR'
  | 'HTTP_CLIENT_ERROR'
  | 'HTTP_SERVER_ERROR'
  | 'HTTP_TRANSPORT'
  | 'HTTP_NOT_JSON'
  | 'RESPONSE_TOO_LARGE'
  | 'RETRY_AFTER_TOO_LONG'
  | 'SCHEMA_DRIFT'
  | 'MODEL_ERROR'
  | 'MODEL_GRAPH'
  | 'AUDIT_FAILED'
  | 'NOT_FOUND'
  | 'CLUSTER_UNREACHABLE'
  | 'INTERNAL';

const defaultExit: Partial<Record<VwhErrorCode, ExitCodeValue>> = {
  AUTH_MISSING_KEY: ExitCode.auth,
  AUTH_INVALID_KEY: ExitCode.auth,
  AUTH_INACTIVE_KEY: ExitCode.auth,
  AUTH_EXPIRED_KEY: ExitCode.auth,
  DB_LOCKED: ExitCode.dbLocked,
  CONFIG_INVALID: ExitCode.usage,
  USAGE: ExitCode.usage,
  SCHEMA_DRIFT: ExitCode.partial,
  AUDIT_FAILED: ExitCode.partial,
};

export interface VwhErrorOptions {
  cause?: unknown;
  exitCode?: ExitCodeValue;
  /** Structured facts for logs and `ops.sync_runs` (never secrets). */
  details?: Record<string, unknown>;
}

export class VwhError extends Error {
  readonly code: VwhErrorCode;
  readonly exitCode: ExitCodeValue;
  readonly details: Record<string, unknown>;

  constructor(code: VwhErrorCode, message: string, options: VwhErrorOptions = {}) {
    super(redact(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VwhError';
    this.code = code;
    this.exitCode = options.exitCode ?? defaultExit[code] ?? ExitCode.failure;
    this.details = options.details ?? {};
  }
}

export function isVwhError(error: unknown): error is VwhError {
  return error instanceof VwhError;
}

const secrets = new Set<string>();

/** Registers a secret (an API key) so that `redact` removes it from any text that leaves the process. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= 8) secrets.add(secret);
}

/** Replaces every registered secret, and anything shaped like an API key header value, with a prefix and stars. */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(maskKey(secret));
  }
  return out
    .replace(/(x-api-key["']?\s*[:=]\s*["']?)([^\s"',}]+)/gi, (_m, head: string, value: string) => {
      return head + maskKey(value);
    })
    .replace(/(postgres(?:ql)?:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}

/** `vwh_live_abcd…` → first 12 characters (the key prefix the API itself displays) and an ellipsis. */
export function maskKey(key: string): string {
  return key.length <= 12 ? '***' : `${key.slice(0, 12)}…`;
}
