/** Inclusive ranges of UTC calendar days (`YYYY-MM-DD`), and the arithmetic the state and the planner need. */
import { addDays, eachDay as daysFromTo, minDay } from '../core/days.js';

// Day arithmetic lives in core/days.ts; these are the names the state and the planner use.
export { addDays, dayDiff as daysBetween, dayToMs, maxDay, minDay, msToDay } from '../core/days.js';

export interface DayRange {
  from: string;
  to: string;
}

/** Sorted, with overlapping or adjacent ranges joined. */
export function mergeRanges(ranges: readonly DayRange[]): DayRange[] {
  const sorted = ranges.filter((r) => r.from <= r.to).sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const out: DayRange[] = [];
  for (const range of sorted) {
    const last = out[out.length - 1];
    if (last && range.from <= addDays(last.to, 1)) {
      if (range.to > last.to) last.to = range.to;
    } else {
      out.push({ ...range });
    }
  }
  return out;
}

/** The parts of `want` not covered by `have`. */
export function subtractRanges(want: DayRange, have: readonly DayRange[]): DayRange[] {
  if (want.from > want.to) return [];
  let pieces: DayRange[] = [{ ...want }];
  for (const h of mergeRanges(have)) {
    const next: DayRange[] = [];
    for (const p of pieces) {
      if (h.to < p.from || h.from > p.to) {
        next.push(p);
        continue;
      }
      if (h.from > p.from) next.push({ from: p.from, to: addDays(h.from, -1) });
      if (h.to < p.to) next.push({ from: addDays(h.to, 1), to: p.to });
    }
    pieces = next;
  }
  return pieces;
}

/** Splits a range into consecutive chunks of at most `maxDays` days. */
export function chunkRange(range: DayRange, maxDays: number): DayRange[] {
  const out: DayRange[] = [];
  let from = range.from;
  while (from <= range.to) {
    const to = minDay(addDays(from, maxDays - 1), range.to);
    out.push({ from, to });
    from = addDays(to, 1);
  }
  return out;
}

/** Every day of the range, in order. */
export function eachDay(range: DayRange): string[] {
  return daysFromTo(range.from, range.to);
}
