/**
 * The value schemas every user input goes through: command-line flags, environment variables and vwh.config.json
 * fields alike. A flag and the config field it mirrors use the same schema, so a value that one rejects the other
 * does too, and every message says what a valid value looks like.
 */
import * as z from 'zod';
import { MAX_TIMER_MS } from './clock.js';
import { isCalendarDay } from './days.js';
import { shown } from './errors.js';
import {
  type Checker,
  checked,
  DAY_PATTERN,
  dayProblem,
  dbFileProblem,
  isDirectory,
  numberMessage,
  timerMaxSeconds,
  timerSecondsText,
  wholeNumberText,
} from './rules.js';

export { checked };

/** A calendar day that exists: `2026-02-28`, not `2026-02-30`. */
export const Day = z
  .string()
  .regex(DAY_PATTERN, { error: (i) => dayProblem(String(i.input)) })
  .refine(isCalendarDay, { error: (i) => dayProblem(String(i.input)) });

/**
 * The days the API's history can hold, for the days that drive requests (`--since`, `--until`, `--today`, the
 * config's `since`): the API is silent on its earliest day, and a day outside this range is a typo that would plan
 * hundreds of thousands of requests (`--since 0000-01-01`) or send a year the API cannot read (`-000001-12`).
 */
export const FIRST_API_DAY = '2000-01-01';
export const LAST_API_DAY = '2099-12-31';

/** A calendar day within FIRST_API_DAY..LAST_API_DAY. */
export const ApiDay = Day.refine((v) => v >= FIRST_API_DAY && v <= LAST_API_DAY, {
  error: (i) => `must be a day from ${FIRST_API_DAY} to ${LAST_API_DAY}, got ${shown(i.input)}`,
});

/** A DuckDB file, not empty and not a folder (rules.ts: dbFileProblem). */
export const DbFile = z.string().superRefine((v, ctx) => {
  const problem = dbFileProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A duration such as `90m`, `26h` or `2d`, in milliseconds (`vwh status --check --max-age`). */
export const Duration = z
  .string()
  .regex(/^\d+(m|h|d)$/, { error: (i) => `must be a duration such as 90m, 26h or 2d, got ${shown(i.input)}` })
  .transform(
    (v) => Number(v.slice(0, -1)) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[v.slice(-1) as 'm' | 'h' | 'd'],
  );

/** An HTTP(S) base URL: scheme, host, optional port and path. `ftp:`, `file:` and bare words are refused. */
export const BaseUrl = z.url({
  protocol: /^https?$/,
  error: (i) => `must be an http:// or https:// URL such as https://api.example.com, got ${shown(i.input)}`,
});

/**
 * A memory size as DuckDB spells it (`memory_limit` of `vwh sync` and `vwh models`, the config's `memoryLimit`): a
 * number and a unit, e.g. `512MB`, `2GB`, `1.5GiB`.
 */
export const MemorySize = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?\s*(B|[KMGT]i?B)$/i, {
    error: (i) => `must be a size such as 512MB or 2GB, got ${shown(i.input)}`,
  });

/** A TCP port to listen on; 0 picks a free one. */
export const Port = wholeNumber(0, 65535);

/** An existing directory (a models folder, a lake root). */
export const ExistingDir = z.string().refine(isDirectory, {
  error: (i) => `must be an existing directory, got ${shown(i.input)}`,
});

/** A whole number in `[min, max]`. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return numberRule(wholeNumberText(min, max)).int().min(min).max(max);
}

export { MAX_TIMER_MS };

/** A duration in whole milliseconds from `min` to the longest Node's timers keep (a longer one would fire at once). */
export function timerMs(min: number) {
  return numberRule(
    `a whole number of milliseconds from ${min} to ${MAX_TIMER_MS} (about 24.8 days, the longest timer Node keeps)`,
  )
    .int()
    .min(min)
    .max(MAX_TIMER_MS);
}

/** A timeout in whole seconds from `min` to the longest Node's timers keep (2147483 s). */
export function timerSeconds(min: number) {
  return numberRule(timerSecondsText(min)).int().min(min).max(timerMaxSeconds());
}

/**
 * A name that becomes one path segment (a lake's `team_id=` folder, a table's or a report's file): letters, digits
 * and `_ . : -`, not starting with a dot, no `..`. One rule for config's team names and the exports.
 */
export function isPathSegment(value: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/.test(value) && !value.includes('..');
}

/** A team's name: stored in every row and a folder of the lake, so a safe path segment. */
export const TeamName = z.string().refine(isPathSegment, {
  error: (i) =>
    `must be letters, digits and _ . : - only, not starting with a dot, no ".." (it names a folder of the lake), got ${shown(i.input)}`,
});

/**
 * What is wrong with an API key as read (already trimmed), or undefined: a key is printable ASCII without spaces
 * (an HTTP header value), so a line break, a tab or a non-ASCII character is a mistake where it was set. The message
 * says where in the key, never the key.
 */
export function keyFormatProblem(key: string): string | undefined {
  const chars = [...key];
  const at = chars.findIndex((c) => c < '!' || c > '~');
  if (at < 0) return undefined;
  const c = chars[at] ?? '';
  const what =
    c === '\n' || c === '\r'
      ? 'a line break'
      : c === ' ' || c === '\t'
        ? 'a space or tab'
        : `the character U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `holds ${what} at character ${at + 1} of ${chars.length}: an API key is printable ASCII without spaces (a key pasted with its line break, or two keys on one line?)`;
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
  return z.number({ error: (i) => numberMessage(rule, i.input) });
}

/**
 * The first defined value among `sources` (`[where it came from, value]`, highest precedence first), checked with
 * the name of its source; `fallback` when none is defined.
 */
export function resolved<S extends z.ZodType & Checker<z.output<S>>>(
  schema: S,
  sources: ReadonlyArray<readonly [string, unknown]>,
  fallback?: z.output<S>,
): z.output<S> | undefined {
  for (const [name, value] of sources) if (value !== undefined) return checked(name, schema, value);
  return fallback;
}
