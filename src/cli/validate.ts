/**
 * One way to check what a user typed: the value schemas of `core/inputs` (also used by vwh.config.json), applied to
 * a flag as commander parses it, or to a value resolved from a flag, an environment variable or the config. Every
 * failure is a `USAGE` error (exit 64) naming the flag or variable and saying what a valid value looks like.
 */
import { existsSync } from 'node:fs';
import { VwhError } from '../core/errors.js';
import { type Checker, checked, DbFileRule } from '../core/rules.js';

/** A commander parser for a text flag (a zod schema of core/inputs, or a rule of core/rules: no zod). */
export function textFlag<T>(name: string, schema: Checker<T>): (value: string) => T {
  return (value) => checked(name, schema, value);
}

/** A commander parser for a numeric flag: the text must be a number before the schema sees it. */
export function numberFlag<T>(name: string, schema: Checker<T>): (value: string) => T {
  // Text that is no number goes on as text, so that the message quotes what was typed.
  return (value) => {
    const n = Number(value);
    return checked(name, schema, value.trim() === '' || Number.isNaN(n) ? value : n);
  };
}

/**
 * A warehouse that must already exist (query, models build): a mistyped path is reported instead of becoming a new,
 * empty file (and a `target/` folder beside it).
 */
export function existingWarehouse(name: string, path: unknown): string {
  const file = checked(name, DbFileRule, path);
  if (!file.startsWith(':memory:') && !existsSync(file)) {
    throw new VwhError(
      'USAGE',
      `No warehouse at ${file}. Fill one first (vwh run, or vwh sync), or point ${name} at an existing file.`,
    );
  }
  return file;
}

/** The readers' help (query, report, status, export): which file they answer from. */
export const READER_HELP =
  '\nWhile a writer holds the warehouse (a vwh run in progress), the published copy answers instead; one line on\n' +
  'stderr names the file read and the run it is as of (docs/operations.md, "Readers during a run").\n';
