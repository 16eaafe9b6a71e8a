import {
  addDays,
  chunkRange,
  type DayRange,
  dayDiff,
  dayNumber,
  maxDay,
  mergeRanges,
  minDay,
  subtractRanges,
} from '../core/days.js';
import type { ParentState } from '../warehouse/state-store.js';
import type { Parent, StreamDef, SyncSettings, Unit } from './types.js';

export interface StreamPlan {
  stream: StreamDef;
  units: Unit[];
  parents: number;
  /** Parents with nothing missing: complete, or (daily streams) only their lookback days re-fetched. */
  complete: number;
  /** Parents on the rotation whose night it is not: nothing asked for them tonight. */
  deferred: number;
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

export interface PlanOptions {
  /** Plan as if nothing had been landed (`--full-refresh`): every unit replaces what it finds. */
  fullRefresh?: boolean;
  /** Parents with rows rejected in an earlier run: rows may exist that the state does not know of. */
  rejectedParents?: ReadonlySet<string>;
}

/**
 * Units of one stream from its parents and their state. Units are computed from the state as it was when the API
 * day began (`before`); units a sync of the same day already landed (`today`) are then left out, so a re-run the
 * same day (a resume after a kill) asks for exactly the units the first run had left.
 * - daily: wanted = [start, last day], where start is --since or the parent's first day (the prompt's creation
 *   day). The tail, the days after the last landed day and the `lookbackDays − 1` days before them (late answers
 *   of the days a previous sync saw as recent), is one date range: one request a night. Older gaps, and a first
 *   sync's history, are chunked to `chunkDays`.
 * - snapshot: one unit per parent unless today's snapshot is already finished.
 * - rotated parents (streams derivable from chats, inactive prompts' chats): once landed, refreshed only on their
 *   rotation night (`rotationSlot`), or when their last refresh is `rotationDays` old.
 * A unit is `fresh` when the state knows none of its days was landed: its rows need no delete.
 */
export function planStream(
  stream: StreamDef,
  parents: readonly Parent[],
  state: ReadonlyMap<string, ParentState>,
  settings: SyncSettings,
  options: PlanOptions = {},
): StreamPlan {
  const units: Unit[] = [];
  let complete = 0;
  let deferred = 0;
  const end = lastDay(settings);
  const slots = rotationSlots(parents, settings.rotationDays);
  for (const parent of parents) {
    const have = options.fullRefresh ? EMPTY : (state.get(parent.id) ?? EMPTY);
    const landed = mergeRanges([...have.before, ...have.today]);
    const rotated = settings.rotationDays > 1 && (stream.rotated?.(parent) ?? false);
    const due = !rotated || isDue(have.before, slots.get(parent.id) ?? 0, settings);
    const planned: DayRange[] = [];
    if (stream.grain === 'snapshot') {
      const day = { from: settings.today, to: settings.today };
      if (subtractRanges(day, landed).length === 0) complete++;
      else if (!due) deferred++;
      else planned.push(day);
    } else {
      const start = settings.since ?? parent.start ?? end;
      if (start > end) {
        complete++;
        continue;
      }
      const wanted = { from: start, to: end };
      const lastKnown = have.before.filter((r) => r.from <= end).at(-1)?.to;
      const firstNew = lastKnown === undefined ? start : minDay(addDays(lastKnown, 1), end);
      const tail = {
        from: maxDay(start, addDays(firstNew, -Math.max(0, settings.lookbackDays - 1))),
        to: end,
      };
      if (settings.lookbackDays === 0 && lastKnown !== undefined && lastKnown >= end) tail.from = addDays(end, 1);
      const gaps = subtractRanges(wanted, have.before).flatMap((r) => subtractRanges(r, [tail]));
      const nightly = { from: maxDay(start, addDays(end, -(settings.lookbackDays - 1))), to: end };
      const missing = subtractRanges(wanted, landed).flatMap((r) => subtractRanges(r, [nightly]));
      if (missing.length === 0) complete++;
      if (!due) {
        deferred++;
        continue;
      }
      for (const gap of gaps) planned.push(...chunkRange(gap, settings.chunkDays));
      if (tail.from <= tail.to) planned.push(...chunkRange(tail, settings.chunkDays));
    }
    for (const range of planned) {
      if (subtractRanges(range, have.today).length === 0) continue;
      const fresh =
        !options.fullRefresh &&
        !options.rejectedParents?.has(parent.id) &&
        stream.grain === 'daily' &&
        landed.every((r) => r.to < range.from || r.from > range.to);
      units.push(unit(stream, parent, range, fresh, settings));
    }
  }
  return {
    stream,
    units,
    parents: parents.length,
    complete,
    deferred,
    requests: units.reduce((sum, u) => sum + u.estimate, 0),
  };
}

const EMPTY: ParentState = { before: [], today: [] };

/**
 * Each parent's night in the rotation: parents sorted by id take the nights of the period in turn, so every night
 * refreshes the same share of them (within one) and each one comes round once per period. Prompts take the nights
 * from the first, projects from the last: the nights holding one prompt more than the others are not also those
 * holding one project more (10 projects and 500 prompts over 7 nights: 72 prompts on nights 0-2, 2 projects on 4-6).
 */
export function rotationSlots(parents: readonly Parent[], period: number): Map<string, number> {
  const nights = Math.max(1, period);
  const ids = parents.map((p) => p.id).sort();
  const backwards = parents.length > 0 && parents.every((p) => p.promptId === undefined);
  return new Map(ids.map((id, i) => [id, backwards ? nights - 1 - (i % nights) : i % nights]));
}

/** Tonight is a parent's rotation night, or it was never landed, or its last refresh is a whole period old. */
function isDue(before: readonly DayRange[], slot: number, settings: SyncSettings): boolean {
  const last = before.at(-1)?.to;
  if (last === undefined) return true;
  if (dayDiff(last, settings.today) >= settings.rotationDays) return true;
  return dayNumber(settings.today) % settings.rotationDays === slot;
}

function unit(stream: StreamDef, parent: Parent, range: DayRange, fresh: boolean, settings: SyncSettings): Unit {
  return {
    stream,
    parent,
    range,
    key: `${stream.name}:${parent.id}:${range.from}..${range.to}`,
    estimate: stream.estimate(parent, range, settings),
    fresh,
  };
}
