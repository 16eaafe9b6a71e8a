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
 * own lookback already covers the late rows, so extending them again would grow the window at every level), each
 * of those days followed by the `readsBack` days after it (not after `end`: days whose rows read it), plus the
 * `stale` days as they are (days this model left stale after an earlier run's end), split into batches of at most
 * `batchDays` days (0: no split).
 */
export function plannedRanges(
  start: string,
  end: string,
  done: ReadonlySet<string>,
  lookback: number,
  batchDays: number,
  more: { restated?: Iterable<string>; readsBack?: number; stale?: Iterable<string> } = {},
): DayRange[] {
  if (start > end) return [];
  const inRange = (d: string) => d >= start && d <= end;
  const missing = eachDay(start, end).filter((d) => !done.has(d));
  const changed = new Set<string>();
  for (const d of more.restated ?? []) if (inRange(d)) changed.add(d);
  for (const stretch of toRanges(missing)) {
    for (const d of eachDay(maxDay(start, addDays(stretch.from, -lookback)), stretch.to)) changed.add(d);
  }
  const days = new Set<string>();
  for (const r of toRanges(changed))
    for (const d of eachDay(r.from, minDay(addDays(r.to, more.readsBack ?? 0), end))) days.add(d);
  for (const d of more.stale ?? []) if (inRange(d)) days.add(d);
  return splitRanges(toRanges(days), batchDays);
}

/**
 * The days after `end` that read a day of `ranges` (`readsBack` days after each), and that `done` holds: a run
 * that stopped at `end` (`--end`) left their rows stale.
 */
export function staleAfterEnd(ranges: readonly DayRange[], end: string, readsBack: number, done: ReadonlySet<string>) {
  if (readsBack === 0 || ranges.length === 0) return [];
  const last = ranges.reduce((m, r) => maxDay(m, r.to), ranges[0]?.to ?? end);
  return toRanges(eachDay(addDays(end, 1), addDays(last, readsBack)).filter((d) => done.has(d)));
}

/**
 * The days a batch holds (`batch_days`, grown by `batch_rows`): `batchDays`, or more while a batch's share of the
 * model's inputs stays under `batchRows` rows, the inputs' rows taken as spread evenly over `spanDays` (the days
 * planned, from the first to the last). `batch_days` is there to hold a batch's memory to its days' rows at the
 * largest sizes; on a small team's history it only multiplies the statements (a first build of the demo world:
 * docs/lab/2026-11-code-constants.md#the-models; the current figure: docs/scaling.md). The inputs' rows
 * are DuckDB's count of them, so the estimate reads no data.
 */
export function daysPerBatch(batchDays: number, batchRows: number, inputRows: number, spanDays: number): number {
  if (batchDays <= 0 || batchRows <= 0 || spanDays <= 0) return batchDays;
  if (inputRows <= 0) return Math.max(batchDays, spanDays);
  return Math.max(batchDays, Math.floor((batchRows * spanDays) / inputRows));
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
