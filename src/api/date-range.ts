/**
 * Resolving the date-range query parameters (Conventions 4) into an inclusive day range.
 *
 * Rules (decided where the spec is silent):
 * - `date_to` defaults to today;
 * - an explicit `date_from` wins over `duration_days`;
 * - otherwise `date_from = date_to − (duration_days − 1)`, so the range holds `duration_days` days (7 by default);
 * - `date_from` after `date_to` is an error (the server answers 400).
 */
import type { DateRangeQueryInput } from './schemas/common.js';

export const DEFAULT_DURATION_DAYS = 7;

export interface ResolvedDateRange {
  date_from: string;
  date_to: string;
}

export class DateRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DateRangeError';
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MS_PER_DAY = 86_400_000;

function dayToMs(day: string, name: string): number {
  const ms = DAY.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day) {
    throw new DateRangeError(`${name} must be a date YYYY-MM-DD, got ${JSON.stringify(day)}`);
  }
  return ms;
}

/** `addDays('2025-03-01', -1)` is `2025-02-28`. */
export function addDays(day: string, days: number): string {
  return new Date(dayToMs(day, 'day') + days * MS_PER_DAY).toISOString().slice(0, 10);
}

export function resolveDateRange(
  query: Pick<DateRangeQueryInput, 'duration_days' | 'date_from' | 'date_to'>,
  today: string,
): ResolvedDateRange {
  const dateTo = query.date_to ?? today;
  const toMs = dayToMs(dateTo, 'date_to');
  let dateFrom: string;
  if (query.date_from !== undefined) {
    dateFrom = query.date_from;
  } else {
    const duration = query.duration_days === undefined ? DEFAULT_DURATION_DAYS : Number(query.duration_days);
    if (!Number.isInteger(duration) || duration < 1) {
      throw new DateRangeError(`duration_days must be a positive integer, got ${String(query.duration_days)}`);
    }
    dateFrom = addDays(dateTo, -(duration - 1));
  }
  if (dayToMs(dateFrom, 'date_from') > toMs) {
    throw new DateRangeError('date_from must not be after date_to');
  }
  return { date_from: dateFrom, date_to: dateTo };
}

/** Every day of an inclusive range, oldest first. */
export function daysOf(range: ResolvedDateRange): string[] {
  const days: string[] = [];
  for (let day = range.date_from; day <= range.date_to; day = addDays(day, 1)) days.push(day);
  return days;
}
