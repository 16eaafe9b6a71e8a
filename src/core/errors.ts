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
  /** `vwh status`: the data is older than allowed (--max-age, freshness.error_after). */
  stale: 5,
  /** Bad command-line arguments or configuration. */
  usage: 64,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** `vwh run`'s exit code for a stage that failed (src/ops/stage.ts), and for a run stopped by a signal. */
export const STAGE_EXIT_CODES = { sync: 10, models: 11, exports: 12, publish: 13, alerts: 14, events: 15 } as const;
export const EXIT_INTERRUPTED = 130;

/**
 * The one table of exit codes: each code means one thing, whatever the command. README.md ("Exit codes"),
 * docs/errors.md and every command's --help (exitCodesHelp) are written from it; test/core/exit-codes.test.ts
 * holds them to it.
 */
export const EXIT_CODES: ReadonlyArray<{ code: number; meaning: string }> = [
  { code: ExitCode.ok, meaning: 'success' },
  { code: ExitCode.failure, meaning: 'failure: the message says what failed' },
  {
    code: ExitCode.partial,
    meaning:
      'partial: the work finished, but rows were rejected, projects skipped or checks failed (the summary says which)',
  },
  {
    code: ExitCode.auth,
    meaning: 'the API refused the key (missing, invalid, inactive or expired); nothing was written',
  },
  {
    code: ExitCode.dbLocked,
    meaning:
      'the warehouse, the run lock or the lake is held by another process (a reader: and no published copy answers)',
  },
  {
    code: ExitCode.stale,
    meaning:
      'stale (vwh status): the last successful run ended longer ago than --max-age, or a stream is past freshness.error_after',
  },
  ...Object.entries(STAGE_EXIT_CODES).map(([stage, code]) => ({
    code,
    meaning: `vwh run: the ${stage} stage was the first to fail`,
  })),
  { code: ExitCode.usage, meaning: 'bad arguments or configuration: the message names the flag, variable or field' },
  { code: EXIT_INTERRUPTED, meaning: 'interrupted by SIGINT or SIGTERM at a safe point' },
];

/**
 * A command's "Exit codes:" section for its --help: the codes it can end with, each with the table's meaning and,
 * when given, what it means for this command.
 */
export function exitCodesHelp(codes: readonly number[], notes: Readonly<Record<number, string>> = {}): string {
  const rows = EXIT_CODES.filter((e) => codes.includes(e.code)).map((e) => {
    const note = notes[e.code] ? `; ${notes[e.code]}` : '';
    return `  ${String(e.code).padEnd(5)}${e.meaning}${note}`;
  });
  return `\nExit codes (the same for every command: README.md, docs/errors.md):\n${rows.join('\n')}`;
}

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
  | 'API_CONTRACT'
  | 'UNITS_FAILED'
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
  API_CONTRACT: ExitCode.partial,
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

/**
 * A value a person gave, quoted for a message: JSON-quoted (a control character shows as `\n`), and cut to `max`
 * characters with its length said, so a 10 kB argument does not fill the terminal.
 */
export function shown(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length <= max
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)`;
}

/** True when `text` holds a registered secret (an environment variable's value that must not reach a child). */
export function holdsSecret(text: string): boolean {
  for (const secret of secrets) if (text.includes(secret)) return true;
  return false;
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
