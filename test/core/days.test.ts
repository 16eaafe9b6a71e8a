/** The one module of day arithmetic, used by the API's date ranges, the reference world, the sync and the models. */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  DAY_MS,
  dayDiff,
  dayFromNumber,
  dayNumber,
  dayOfInstant,
  dayToMs,
  eachDay,
  isCalendarDay,
  maxDay,
  minDay,
  msToDay,
  parseDayNumber,
} from '../../src/core/days.js';

describe('core/days', () => {
  it('adds days across months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2026-03-15', 0)).toBe('2026-03-15');
  });

  it('converts between days, instants and day numbers', () => {
    expect(dayToMs('1970-01-02')).toBe(DAY_MS);
    expect(msToDay(DAY_MS * 2 - 1)).toBe('1970-01-02');
    expect(dayNumber('1970-01-11')).toBe(10);
    expect(dayFromNumber(dayNumber('2026-05-20'))).toBe('2026-05-20');
    expect(dayOfInstant(Date.parse('2026-05-20T23:59:59Z'))).toBe(dayNumber('2026-05-20'));
  });

  it('parses a text that may not be a day: the day number of a calendar day, undefined otherwise', () => {
    // Every day of two centuries (leap days, 1900 and 2100 without one, 2000 with one) agrees with dayNumber.
    const disagree: string[] = [];
    for (let n = dayNumber('1899-01-01'); n <= dayNumber('2101-12-31'); n++) {
      if (parseDayNumber(dayFromNumber(n)) !== n) disagree.push(dayFromNumber(n));
    }
    expect(disagree).toEqual([]);
    for (const text of [
      '2025-02-29',
      '2025-02-30',
      '1900-02-29',
      '2026-13-01',
      '2026-04-31',
      '2026-00-10',
      '2026-1-1',
      '',
    ]) {
      expect(parseDayNumber(text)).toBeUndefined();
    }
    expect(parseDayNumber('2024-02-29')).toBe(dayNumber('2024-02-29'));
  });

  it('counts and lists days of an inclusive range', () => {
    expect(dayDiff('2026-02-27', '2026-03-02')).toBe(3);
    expect(dayDiff('2026-03-02', '2026-02-27')).toBe(-3);
    expect(eachDay('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(eachDay('2026-03-02', '2026-03-01')).toEqual([]);
    expect([minDay('2026-01-02', '2025-12-31'), maxDay('2026-01-02', '2025-12-31')]).toEqual([
      '2025-12-31',
      '2026-01-02',
    ]);
  });

  it('accepts only calendar days that exist', () => {
    expect(isCalendarDay('2024-02-29')).toBe(true);
    expect(isCalendarDay('2026-02-29')).toBe(false);
    expect(isCalendarDay('2026-02-30')).toBe(false);
    expect(isCalendarDay('2026-1-05')).toBe(false);
    expect(isCalendarDay('2026-01-05T00:00:00Z')).toBe(false);
  });
});
