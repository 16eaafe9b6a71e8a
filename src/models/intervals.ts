/** Daily intervals as `YYYY-MM-DD` strings (UTC), and the arithmetic on them the incremental kinds need. */
import { addDays, eachDay as daysBetween, maxDay, minDay } from '../core/days.js';

// Day arithmetic lives in core/days.ts; these are the names the models use (`daysBetween`: every day from start to
// end, both included).
export { isCalendarDay as isDay, msToDay as toDay } from '../core/days.js';
export { addDays, daysBetween, maxDay, minDay };

export type DayRange = readonly [start: string, end: string];

/** Sorted days → contiguous ranges. */
export function toRanges(days: Iterable<string>): DayRange[] {
  const sorted = [...new Set(days)].sort();
  const ranges: [string, string][] = [];
  for (const day of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && addDays(last[1], 1) === day) last[1] = day;
    else ranges.push([day, day]);
  }
  return ranges;
}

/**
 * The days to process: those of [start, end] not in `done`, each missing stretch extended `lookback` days back
 * (not before `start`), plus the `restated` days of [start, end] as they are (days an upstream model rewrote: its
 * own lookback already covers the late rows, so extending them again would grow the window at every level), split
 * into batches of at most `batchDays` days (0: no split).
 */
export function plannedRanges(
  start: string,
  end: string,
  done: ReadonlySet<string>,
  lookback: number,
  batchDays: number,
  restated: Iterable<string> = [],
): DayRange[] {
  if (start > end) return [];
  const missing = daysBetween(start, end).filter((d) => !done.has(d));
  const extended = new Set<string>();
  for (const d of restated) if (d >= start && d <= end) extended.add(d);
  for (const [s, e] of toRanges(missing)) {
    const from = maxDay(start, addDays(s, -lookback));
    for (const d of daysBetween(from, e)) extended.add(d);
  }
  return splitRanges(toRanges(extended), batchDays);
}

export function splitRanges(ranges: DayRange[], batchDays: number): DayRange[] {
  if (batchDays <= 0) return ranges;
  const out: DayRange[] = [];
  for (const [s, e] of ranges) {
    for (let from = s; from <= e; from = addDays(from, batchDays)) {
      const to = addDays(from, batchDays - 1);
      out.push([from, minDay(to, e)]);
    }
  }
  return out;
}

export function formatRanges(ranges: readonly DayRange[]): string {
  return ranges.map(([s, e]) => (s === e ? s : `${s}..${e}`)).join(', ');
}

/** A timestamp DuckDB reads as TIMESTAMP (UTC wall time, no zone suffix). */
export function sqlTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}
