import { addDays, chunkRange, type DayRange, maxDay, minDay, subtractRanges } from '../warehouse/day-ranges.js';
import type { Parent, StreamDef, SyncSettings, Unit } from './types.js';

export interface StreamPlan {
  stream: StreamDef;
  units: Unit[];
  parents: number;
  /** Parents with nothing missing: complete, or (daily streams) only their lookback days re-fetched. */
  complete: number;
  requests: number;
}

/**
 * The last day a day-partitioned stream asks for: today (its on-time answers are already served; the lookback
 * fetches it again tomorrow with its late answers), or --until.
 */
export function lastDay(settings: SyncSettings): string {
  return settings.until ? minDay(settings.until, settings.today) : settings.today;
}

/** The analysis window of window-grain streams: `windowDays` days ending at the last day. */
export function analysisWindow(settings: SyncSettings): DayRange {
  const to = lastDay(settings);
  return { from: addDays(to, -(settings.windowDays - 1)), to };
}

/**
 * Units of one stream from its parents and their finished ranges.
 * - daily: wanted = [start, last day], where start is --since or the parent's first day (the prompt's creation
 *   day); missing = wanted − finished, chunked to `chunkDays`; the lookback days (the last `lookbackDays`) are
 *   always one more unit of their own, so late answers are caught and chunk boundaries stay the same across runs.
 * - snapshot: one unit per parent unless today's snapshot is already finished.
 */
export function planStream(
  stream: StreamDef,
  parents: readonly Parent[],
  finished: ReadonlyMap<string, readonly DayRange[]>,
  settings: SyncSettings,
): StreamPlan {
  const units: Unit[] = [];
  let complete = 0;
  const end = lastDay(settings);
  for (const parent of parents) {
    const have = finished.get(parent.id) ?? [];
    if (stream.grain === 'snapshot') {
      const day = { from: settings.today, to: settings.today };
      if (subtractRanges(day, have).length === 0) complete++;
      else units.push(unit(stream, parent, day, false, settings));
      continue;
    }
    const start = settings.since ?? parent.start ?? end;
    if (start > end) {
      complete++;
      continue;
    }
    const wanted = { from: start, to: end };
    const lookback: DayRange | undefined =
      settings.lookbackDays > 0
        ? { from: maxDay(start, addDays(end, -(settings.lookbackDays - 1))), to: end }
        : undefined;
    const missing = subtractRanges(wanted, have).flatMap((r) => (lookback ? subtractRanges(r, [lookback]) : [r]));
    if (missing.length === 0) complete++;
    for (const range of missing) {
      for (const chunk of chunkRange(range, settings.chunkDays))
        units.push(unit(stream, parent, chunk, false, settings));
    }
    if (lookback) {
      const already = subtractRanges(lookback, have).length === 0;
      for (const chunk of chunkRange(lookback, settings.chunkDays))
        units.push(unit(stream, parent, chunk, already, settings));
    }
  }
  return {
    stream,
    units,
    parents: parents.length,
    complete,
    requests: units.reduce((sum, u) => sum + u.estimate, 0),
  };
}

function unit(stream: StreamDef, parent: Parent, range: DayRange, lookback: boolean, settings: SyncSettings): Unit {
  return {
    stream,
    parent,
    range,
    key: `${stream.name}:${parent.id}:${range.from}..${range.to}`,
    estimate: stream.estimate(parent, range, settings),
    lookback,
  };
}
