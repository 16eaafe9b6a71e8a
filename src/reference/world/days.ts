/** UTC calendar-day arithmetic on `YYYY-MM-DD` strings and day numbers (days since 1970-01-01). */
import type { Day } from './types.js';

export const DAY_MS = 86_400_000;

export function dayNumber(day: Day): number {
  return Math.floor(Date.parse(`${day}T00:00:00.000Z`) / DAY_MS);
}

export function dayFromNumber(n: number): Day {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

/** The day number containing the instant `ms`. */
export function dayOfInstant(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** Day number of an ISO timestamp. */
export function dayOfIso(iso: string): number {
  return dayOfInstant(Date.parse(iso));
}

export function addDays(day: Day, n: number): Day {
  return dayFromNumber(dayNumber(day) + n);
}

/** Inclusive list of day numbers. */
export function dayNumbers(from: number, to: number): number[] {
  const out: number[] = [];
  for (let d = from; d <= to; d++) out.push(d);
  return out;
}
