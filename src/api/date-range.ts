/**
 * Resolving the date-range query parameters (Conventions 4) into an inclusive day range.
 *
 * Rules (decided where the spec is silent):
 * - `date_to` defaults to today;
 * - an explicit `date_from` wins over `duration_days`;
 * - otherwise `date_from = date_to − (duration_days − 1)`, so the range holds `duration_days` days (7 by default);
 * - `date_from` after `date_to` is an error (the server answers 400).
 */
import { addDays, dayToMs, eachDay, isCalendarDay } from '../core/days.js';
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

function dayMs(day: string, name: string): number {
  if (!isCalendarDay(day)) throw new DateRangeError(`${name} must be a date YYYY-MM-DD, got ${JSON.stringify(day)}`);
  return dayToMs(day);
}

export function resolveDateRange(
  query: Pick<DateRangeQueryInput, 'duration_days' | 'date_from' | 'date_to'>,
  today: string,
): ResolvedDateRange {
  const dateTo = query.date_to ?? today;
  const toMs = dayMs(dateTo, 'date_to');
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
  if (dayMs(dateFrom, 'date_from') > toMs) {
    throw new DateRangeError('date_from must not be after date_to');
  }
  return { date_from: dateFrom, date_to: dateTo };
}

/** Every day of an inclusive range, oldest first. */
export function daysOf(range: ResolvedDateRange): string[] {
  return eachDay(range.date_from, range.date_to);
}
