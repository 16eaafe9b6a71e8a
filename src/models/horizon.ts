/**
 * The horizon: the last day a build processes. It is the warehouse's own data, not the machine's clock: the last
 * complete day of the API as the sync recorded it. Every sync run keeps the API's day it ended on (the `Date`
 * header's day, `ops.sync_runs.options.today`; a `--today` after it is brought back to it by the sync), and the
 * API serves a day's late answers the next day, so the last complete day is the newest of those days minus one.
 * A machine whose clock runs ahead of the API (a sync with `--today`, a server in another time zone, a wrong
 * clock) used to mark the days up to its own yesterday built while they were still empty.
 */
import type { Clock } from '../core/clock.js';
import { addDays, minDay, msToDay } from '../core/days.js';
import type { Session } from '../warehouse/session.js';
import type { Relations } from './relations.js';

export interface Horizon {
  /** The last day time-range models process in this build: the horizon, or `--end` when that is earlier. */
  end: string;
  /** The last complete day of the warehouse's data. */
  day: string;
  /**
   * `sync`: the API's day the newest sync recorded, minus one. `clock`: a warehouse no sync has written (loaded by
   * other means, a test fixture) has no API day; its horizon is yesterday by the injected clock.
   */
  source: 'sync' | 'clock';
  /** Set when `--end` was after the horizon and was brought back to it. */
  note?: string;
}

/** The horizon of a build on this warehouse, with `--end` (if any) lowering it, never raising it. */
export async function readHorizon(
  exec: Session,
  relations: Relations,
  clock: Clock,
  requestedEnd?: string,
): Promise<Horizon> {
  const apiDay = await lastApiDay(exec, relations);
  const day = addDays(apiDay ?? msToDay(clock.now()), -1);
  const source = apiDay ? 'sync' : 'clock';
  const horizon: Horizon = { end: requestedEnd ? minDay(requestedEnd, day) : day, day, source };
  if (requestedEnd && requestedEnd > day) {
    horizon.note =
      source === 'sync'
        ? `--end ${requestedEnd} is after the last complete day of the API the sync recorded (${day}, the API's day ${apiDay} minus one); building up to ${day}, never past it`
        : `--end ${requestedEnd} is after yesterday (${day}); building up to ${day}, never past it`;
  }
  return horizon;
}

/** The newest API day any sync run recorded (`ops.sync_runs.options.today`), or undefined when none did. */
export async function lastApiDay(exec: Session, relations: Relations): Promise<string | undefined> {
  if (relations.kind('ops', 'sync_runs') !== 'table') return undefined;
  const day = await exec.scalar<string | null>(
    `SELECT strftime(max(TRY_CAST(json_extract_string(options, '$.today') AS DATE)), '%Y-%m-%d') FROM ops.sync_runs`,
  );
  return day ?? undefined;
}
