/**
 * The value schemas every user input goes through: command-line flags, environment variables and vwh.config.json
 * fields alike. A flag and the config field it mirrors use the same schema, so a value that one rejects the other
 * does too, and every message says what a valid value looks like.
 */
import { statSync } from 'node:fs';
import * as z from 'zod';
import { isCalendarDay } from './days.js';
import { VwhError } from './errors.js';

/** A calendar day that exists: `2026-02-28`, not `2026-02-30`. */
export const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: (i) => `must be a day YYYY-MM-DD, got "${String(i.input)}"` })
  .refine(isCalendarDay, { error: (i) => `must be a calendar day that exists, got "${String(i.input)}"` });

/**
 * A DuckDB file. Empty (an unset shell variable) would open an in-memory database that vanishes with the process,
 * so it is refused rather than reported as a successful sync.
 */
export const DbFile = z
  .string()
  .refine((v) => v.trim() !== '', {
    error: 'is empty (an unset variable?): give the path of the warehouse file, e.g. data/warehouse.duckdb',
  })
  .refine((v) => v.startsWith(':memory:') || !isDirectory(v), {
    error: (i) => `is a directory (${String(i.input)}); give the path of the warehouse file inside it`,
  });

/** A duration such as `90m`, `26h` or `2d`, in milliseconds (`vwh status --check --max-age`). */
export const Duration = z
  .string()
  .regex(/^\d+(m|h|d)$/, { error: (i) => `must be a duration such as 90m, 26h or 2d, got "${String(i.input)}"` })
  .transform(
    (v) => Number(v.slice(0, -1)) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[v.slice(-1) as 'm' | 'h' | 'd'],
  );

/** An HTTP(S) base URL: scheme, host, optional port and path. `ftp:`, `file:` and bare words are refused. */
export const BaseUrl = z.url({
  protocol: /^https?$/,
  error: (i) => `must be an http:// or https:// URL such as https://api.example.com, got "${String(i.input)}"`,
});

/**
 * A memory size as DuckDB spells it (`memory_limit` of `vwh sync` and `vwh models`, the config's `memoryLimit`): a
 * number and a unit, e.g. `512MB`, `2GB`, `1.5GiB`.
 */
export const MemorySize = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?\s*(B|[KMGT]i?B)$/i, {
    error: (i) => `must be a size such as 512MB or 2GB, got "${String(i.input)}"`,
  });

/** A TCP port to listen on; 0 picks a free one. */
export const Port = wholeNumber(0, 65535);

/** An existing directory (a models folder, a lake root). */
export const ExistingDir = z.string().refine(isDirectory, {
  error: (i) => `must be an existing directory, got "${String(i.input)}"`,
});

/** A whole number in `[min, max]`. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return numberRule(
    max === Number.MAX_SAFE_INTEGER ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`,
  )
    .int()
    .min(min)
    .max(max);
}

/** A share in (0, 1]. */
export const Share = numberRule('a number in (0, 1], e.g. 0.5').gt(0).lte(1);

/** A fraction in [0, 1]. */
export const Fraction = numberRule('a number from 0 to 1').min(0).max(1);

/** The longest Retry-After a sync waits for, in seconds: at most a day. */
export const MaxRetryAfterSeconds = wholeNumber(0, 86_400);

export const Uuid = z.guid('must be a UUID such as 3f2b6c1e-8a4d-4b7e-9c2f-1d5e6a7b8c9d');

/**
 * A webhook signing secret: 16 characters at least, so that a forged body cannot be signed with a guessable (or
 * empty) key. The message gives the length, never the secret.
 */
export const WebhookSecret = z.string().min(16, {
  error: (i) =>
    `must be at least 16 characters (e.g. the output of \`openssl rand -hex 32\`), got ${String(i.input).length} characters`,
});

/** A number schema whose every failure says the whole rule and the value given. */
function numberRule(rule: string) {
  return z.number({ error: (i) => `must be ${rule}, got ${JSON.stringify(i.input) ?? String(i.input)}` });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Checks `value` with `schema`; `name` says where the value came from (`--db`, `VWH_BASE_URL`, `baseUrl in …`). */
export function checked<S extends z.ZodType>(name: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
  throw new VwhError('USAGE', `${name}${where} ${issue?.message ?? 'is invalid'}.`);
}

/**
 * The first defined value among `sources` (`[where it came from, value]`, highest precedence first), checked with
 * the name of its source; `fallback` when none is defined.
 */
export function resolved<S extends z.ZodType>(
  schema: S,
  sources: ReadonlyArray<readonly [string, unknown]>,
  fallback?: z.output<S>,
): z.output<S> | undefined {
  for (const [name, value] of sources) if (value !== undefined) return checked(name, schema, value);
  return fallback;
}
