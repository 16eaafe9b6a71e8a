/**
 * The simulated calendar. `now` = the start of `--today` + the time elapsed on the injected Clock + the offset the
 * control plane moved. The rate-limit window runs on the Clock itself, never on this calendar.
 */
import type { Clock } from '../../core/clock.js';
import { dayToMs, msToDay } from '../../core/days.js';
import type { Day } from '../world/types.js';

/** The simulated day starts at 06:00 UTC: the night's collection of the previous day has finished. */
export const START_HOUR_UTC = 6;

export class SimClock {
  private offsetMs = 0;
  private readonly realStart: number;
  private readonly simStart: number;

  constructor(
    private readonly clock: Clock,
    today: Day,
  ) {
    this.realStart = clock.now();
    this.simStart = dayToMs(today) + START_HOUR_UTC * 3_600_000;
  }

  now(): number {
    return this.simStart + (this.clock.now() - this.realStart) + this.offsetMs;
  }

  today(): Day {
    return msToDay(this.now());
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the simulated clock only moves forward');
    this.offsetMs += ms;
  }
}
