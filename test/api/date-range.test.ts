import { describe, expect, it } from 'vitest';
import { DateRangeError, daysOf, resolveDateRange } from '../../src/api/index.js';

const today = '2025-06-10';

describe('resolveDateRange', () => {
  it('defaults to the 7 days ending today', () => {
    expect(resolveDateRange({}, today)).toEqual({ date_from: '2025-06-04', date_to: today });
  });

  it('counts duration_days back from date_to, inclusive', () => {
    expect(resolveDateRange({ duration_days: 1 }, today)).toEqual({ date_from: today, date_to: today });
    expect(resolveDateRange({ duration_days: 30, date_to: '2025-03-01' }, today)).toEqual({
      date_from: '2025-01-31',
      date_to: '2025-03-01',
    });
  });

  it('lets explicit dates win over duration_days', () => {
    expect(resolveDateRange({ duration_days: 90, date_from: '2025-06-01', date_to: '2025-06-03' }, today)).toEqual({
      date_from: '2025-06-01',
      date_to: '2025-06-03',
    });
  });

  it('ends a range given only date_from today', () => {
    expect(resolveDateRange({ date_from: '2025-05-01' }, today)).toEqual({ date_from: '2025-05-01', date_to: today });
  });

  it('rejects date_from after date_to, bad days and bad durations', () => {
    expect(() => resolveDateRange({ date_from: '2025-06-11' }, today)).toThrow(DateRangeError);
    expect(() => resolveDateRange({ date_to: '2025-02-30' }, today)).toThrow(DateRangeError);
    expect(() => resolveDateRange({ duration_days: 0 }, today)).toThrow(DateRangeError);
  });

  it('lists the days of a range across a leap day', () => {
    expect(daysOf({ date_from: '2024-02-28', date_to: '2024-03-01' })).toEqual([
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
  });
});
