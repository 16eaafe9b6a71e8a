/**
 * The simulated calendar. `now` = the start of `--today` + the time elapsed on the injected Clock + the offset the
 * control plane moved. The rate-limit window runs on the Clock itself, never on this calendar.
 */
import type { Clock } from '../core/clock.js';
import type { Day } from './world/types.js';

export const DAY_MS = 86_400_000;
/** The simulated day starts at 06:00 UTC: the night's collection of the previous day has finished. */
export const START_HOUR_UTC = 6;

export function todayUtc(realNow: number): Day {
  return new Date(realNow).toISOString().slice(0, 10);
}

export function dayStart(day: Day): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

export function addDays(day: Day, days: number): Day {
  return new Date(dayStart(day) + days * DAY_MS).toISOString().slice(0, 10);
}

export class SimClock {
  private offsetMs = 0;
  private readonly realStart: number;
  private readonly simStart: number;

  constructor(
    private readonly clock: Clock,
    today: Day,
  ) {
    this.realStart = clock.now();
    this.simStart = dayStart(today) + START_HOUR_UTC * 3_600_000;
  }

  now(): number {
    return this.simStart + (this.clock.now() - this.realStart) + this.offsetMs;
  }

  today(): Day {
    return todayUtc(this.now());
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the simulated clock only moves forward');
    this.offsetMs += ms;
  }
}
