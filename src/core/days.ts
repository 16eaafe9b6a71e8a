/**
 * UTC calendar days: `YYYY-MM-DD` strings, day numbers (whole days since 1970-01-01) and the arithmetic on them.
 * The one home of day arithmetic: the API's date ranges, the reference world and its clock, the sync state and the
 * models all use these.
 */

export const DAY_MS = 86_400_000;

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Midnight UTC of `day`, in ms since the epoch (NaN when `day` is not a date). */
export function dayToMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** The UTC day of the instant `ms`. */
export function msToDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** True for a calendar day written `YYYY-MM-DD` that exists (`2026-02-30` does not). */
export function isCalendarDay(text: string): boolean {
  if (!DAY_PATTERN.test(text)) return false;
  const ms = dayToMs(text);
  return !Number.isNaN(ms) && msToDay(ms) === text;
}

/** `addDays('2025-03-01', -1)` is `2025-02-28`. */
export function addDays(day: string, n: number): string {
  return msToDay(dayToMs(day) + n * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function dayDiff(from: string, to: string): number {
  return Math.round((dayToMs(to) - dayToMs(from)) / DAY_MS);
}

/** Every day from `from` to `to`, both included, oldest first (empty when `from` is after `to`). */
export function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** Whole days since 1970-01-01 of `day`. */
export function dayNumber(day: string): number {
  return Math.floor(dayToMs(day) / DAY_MS);
}

export function dayFromNumber(n: number): string {
  return msToDay(n * DAY_MS);
}

/** The day number containing the instant `ms`. */
export function dayOfInstant(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function minDay(a: string, b: string): string {
  return a < b ? a : b;
}

export function maxDay(a: string, b: string): string {
  return a > b ? a : b;
}
