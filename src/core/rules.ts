/**
 * The input rules that need no schema library: what `checked` applies (a zod schema or a `rule`), and the rules of
 * the flags a reader command takes (`vwh query`'s --db, --max-rows, --timeout), so that a query loads no zod
 * (docs/lab/2026-12-query-startup.md). core/inputs.ts builds its zod schemas of the same values on these, so a flag
 * and the config field it mirrors say the same thing.
 */
import { statSync } from 'node:fs';
import { MAX_TIMER_MS } from './clock.js';
import { isCalendarDay } from './days.js';
import { shown, VwhError } from './errors.js';

/** What `checked` asks of a schema: zod's schemas have it, and so has a `rule`. */
export interface Checker<T> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } };
}

/** Checks `value` with `schema`; `name` says where the value came from (`--db`, `VWH_BASE_URL`, `baseUrl in …`). */
export function checked<T>(name: string, schema: Checker<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
  throw new VwhError('USAGE', `${name}${where} ${issue?.message ?? 'is invalid'}.`);
}

/** A checker from a function that says what is wrong with a value (undefined: nothing). */
export function rule<T>(problem: (value: unknown) => string | undefined): Checker<T> {
  return {
    safeParse(value) {
      const message = problem(value);
      return message === undefined
        ? { success: true, data: value as T }
        : { success: false, error: { issues: [{ message, path: [] }] } };
    },
  };
}

/**
 * What is wrong with a DuckDB file's path, or undefined. Empty (an unset shell variable) would open an in-memory
 * database that vanishes with the process, so it is refused rather than reported as a successful sync.
 */
export function dbFileProblem(path: string): string | undefined {
  if (path.trim() === '') {
    return 'is empty (an unset variable?): give the path of the warehouse file, e.g. data/warehouse.duckdb';
  }
  if (!path.startsWith(':memory:') && isDirectory(path)) {
    return `is a directory (${shown(path)}); give the path of the warehouse file inside it`;
  }
  return undefined;
}

/** A warehouse file given on the command line (the text of a flag). */
export const DbFileRule = rule<string>((v) => (typeof v === 'string' ? dbFileProblem(v) : `must be a path, got ${v}`));

/** What is wrong with a day's text (`YYYY-MM-DD`, a calendar day that exists), or undefined. */
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export function dayProblem(value: string): string | undefined {
  if (!DAY_PATTERN.test(value)) return `must be a day YYYY-MM-DD, got ${shown(value)}`;
  if (!isCalendarDay(value)) return `must be a calendar day that exists, got ${shown(value)}`;
  return undefined;
}

/** A day given on the command line (the flag's side of core/inputs' `Day`). */
export const DayRule = rule<string>((v) =>
  typeof v === 'string' ? dayProblem(v) : `must be a day YYYY-MM-DD, got ${v}`,
);

/** The words of a whole number rule: `a whole number >= 1`, `a whole number from 0 to 64`. */
export function wholeNumberText(min: number, max = Number.MAX_SAFE_INTEGER): string {
  return max === Number.MAX_SAFE_INTEGER ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`;
}

/** The words of a timeout rule in whole seconds from `min` to the longest timer Node keeps. */
export function timerSecondsText(min: number): string {
  return `a whole number of seconds from ${min} to ${timerMaxSeconds()} (about 24.8 days, the longest timer Node keeps)`;
}

export function timerMaxSeconds(): number {
  return Math.floor(MAX_TIMER_MS / 1000);
}

/** A number rule's message: the whole rule and the value given. */
export function numberMessage(ruleText: string, input: unknown): string {
  return `must be ${ruleText}, got ${typeof input === 'string' ? shown(input) : (JSON.stringify(input) ?? String(input))}`;
}

/** A whole number in `[min, max]` (the flag's side of core/inputs' `wholeNumber`). */
export function wholeNumberRule(min: number, max = Number.MAX_SAFE_INTEGER): Checker<number> {
  return wholeInRange(wholeNumberText(min, max), min, max);
}

/** A timeout in whole seconds (the flag's side of core/inputs' `timerSeconds`). */
export function timerSecondsRule(min: number): Checker<number> {
  return wholeInRange(timerSecondsText(min), min, timerMaxSeconds());
}

function wholeInRange(text: string, min: number, max: number): Checker<number> {
  return rule<number>((v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? undefined : numberMessage(text, v),
  );
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
