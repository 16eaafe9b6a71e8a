/** Daily intervals as `YYYY-MM-DD` strings (UTC), and the arithmetic on them the incremental kinds need. */
import { addDays, type DayRange, eachDay, maxDay, minDay } from '../core/days.js';

/** Sorted days → contiguous ranges. */
export function toRanges(days: Iterable<string>): DayRange[] {
  const sorted = [...new Set(days)].sort();
  const ranges: DayRange[] = [];
  for (const day of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && addDays(last.to, 1) === day) last.to = day;
    else ranges.push({ from: day, to: day });
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
  const missing = eachDay(start, end).filter((d) => !done.has(d));
  const extended = new Set<string>();
  for (const d of restated) if (d >= start && d <= end) extended.add(d);
  for (const stretch of toRanges(missing)) {
    for (const d of eachDay(maxDay(start, addDays(stretch.from, -lookback)), stretch.to)) extended.add(d);
  }
  return splitRanges(toRanges(extended), batchDays);
}

export function splitRanges(ranges: DayRange[], batchDays: number): DayRange[] {
  if (batchDays <= 0) return ranges;
  const out: DayRange[] = [];
  for (const range of ranges) {
    for (let from = range.from; from <= range.to; from = addDays(from, batchDays)) {
      out.push({ from, to: minDay(addDays(from, batchDays - 1), range.to) });
    }
  }
  return out;
}

export function formatRanges(ranges: readonly DayRange[]): string {
  return ranges.map((r) => (r.from === r.to ? r.from : `${r.from}..${r.to}`)).join(', ');
}

/** A timestamp DuckDB reads as TIMESTAMP (UTC wall time, no zone suffix). */
export function sqlTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}
