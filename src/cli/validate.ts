/**
 * One way to check what a user typed: the value schemas of `core/inputs` (also used by vwh.config.json), applied to
 * a flag as commander parses it, or to a value resolved from a flag, an environment variable or the config. Every
 * failure is a `USAGE` error (exit 64) naming the flag or variable and saying what a valid value looks like.
 */
import { existsSync } from 'node:fs';
import { Option } from 'commander';
import type * as z from 'zod';
import { VwhError } from '../core/errors.js';
import { DbFile } from '../core/inputs.js';

/** Checks `value` with `schema`; `name` says where the value came from (`--db`, `VWH_BASE_URL`, `baseUrl in …`). */
export function checked<S extends z.ZodType>(name: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
  throw new VwhError('USAGE', `${name}${where} ${issue?.message ?? 'is invalid'}.`);
}

/** A commander parser for a text flag. */
export function textFlag<S extends z.ZodType>(name: string, schema: S): (value: string) => z.output<S> {
  return (value) => checked(name, schema, value);
}

/** A commander parser for a numeric flag: the text must be a number before the schema sees it. */
export function numberFlag<S extends z.ZodType>(name: string, schema: S): (value: string) => z.output<S> {
  // Text that is no number goes on as text, so that the message quotes what was typed.
  return (value) => {
    const n = Number(value);
    return checked(name, schema, value.trim() === '' || Number.isNaN(n) ? value : n);
  };
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

/**
 * A warehouse that must already exist (query, models build): a mistyped path is reported instead of becoming a new,
 * empty file (and a `target/` folder beside it).
 */
export function existingWarehouse(name: string, path: unknown): string {
  const file = checked(name, DbFile, path);
  if (!file.startsWith(':memory:') && !existsSync(file)) {
    throw new VwhError(
      'USAGE',
      `No warehouse at ${file}. Fill one first (vwh run, or vwh sync), or point ${name} at an existing file.`,
    );
  }
  return file;
}

/** `--log-format pretty|json`, the same on every command that logs (commander refuses another value: exit 64). */
export function logFormatOption(): Option {
  return new Option('--log-format <format>', 'pretty or json (default: pretty on a terminal)').choices([
    'pretty',
    'json',
  ]);
}
