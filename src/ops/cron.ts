/**
 * When a cron expression fires, in an IANA time zone, as instants: node-cron parses and validates the expression;
 * the instants are computed here, from any `now`, so the scheduler runs on an injected clock (node-cron's own timers
 * read the real time). Daylight saving follows the "compatible" rule of Temporal and Vixie cron: a local time that
 * does not exist (the spring-forward gap) fires as many minutes after the gap as it was into it; a local time that
 * occurs twice (fall back) fires at its first occurrence only. A nightly job therefore fires once on both days.
 */
import cron from 'node-cron';
import { DAY_MS } from '../core/days.js';
import { VwhError } from '../core/errors.js';

interface Fields {
  second: number[];
  minute: number[];
  hour: number[];
  dayOfMonth: number[];
  month: number[];
  dayOfWeek: number[];
}

export class CronTrigger {
  private readonly fields: Fields;
  private readonly format: Intl.DateTimeFormat;

  constructor(
    readonly expression: string,
    readonly timezone = 'UTC',
    /** Where the expression and the zone came from, named in errors (`--cron`, or the config's fields). */
    names: { cron?: string; timezone?: string } = {},
  ) {
    const cronName = names.cron ?? 'schedule.cron';
    const zoneName = names.timezone ?? 'schedule.timezone';
    if (!cron.validate(expression)) {
      throw new VwhError(
        'CONFIG_INVALID',
        `${cronName} "${expression}" is not a cron expression: 5 fields, minute hour day-of-month month day-of-week (e.g. "30 2 * * *" is 02:30 every day).`,
      );
    }
    const parsed = cron.parse(expression);
    const numeric = (values: Array<number | string>, field: string) => {
      if (values.some((v) => typeof v !== 'number')) {
        throw new VwhError(
          'CONFIG_INVALID',
          `${cronName}: the ${field} field "${expression}" uses a form not supported here.`,
        );
      }
      return values as number[];
    };
    this.fields = {
      ...parsed,
      dayOfMonth: numeric(parsed.dayOfMonth, 'day-of-month'),
      dayOfWeek: numeric(parsed.dayOfWeek, 'day-of-week'),
    };
    try {
      this.format = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new VwhError('CONFIG_INVALID', `${zoneName} "${timezone}" is not an IANA time zone (e.g. Europe/Berlin).`);
    }
  }

  /** `2026-11-26 02:30 Europe/Berlin (01:30 UTC)`: an instant as the schedule's zone and UTC read it. */
  describe(ms: number): string {
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: this.timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    }).format(ms);
    const utc = new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
    return this.timezone === 'UTC' ? `${utc} UTC` : `${local} ${this.timezone} (${utc} UTC)`;
  }

  /** The first firing strictly after `after`. */
  next(after: number): number {
    const start = this.localDay(after);
    for (let d = -1; d <= 400; d++) {
      const hit = this.firesOn(start + d * DAY_MS).find((t) => t > after);
      if (hit !== undefined) return hit;
    }
    throw new VwhError('CONFIG_INVALID', `schedule.cron "${this.expression}" never fires within a year.`);
  }

  /** The last firing at or before `atOrBefore`, or undefined when none within a year. */
  previous(atOrBefore: number): number | undefined {
    const start = this.localDay(atOrBefore);
    for (let d = 1; d >= -400; d--) {
      const hits = this.firesOn(start + d * DAY_MS).filter((t) => t <= atOrBefore);
      if (hits.length) return hits[hits.length - 1];
    }
    return undefined;
  }

  /** The instants at which it fires on one local calendar day (given as its midnight, in wall-clock ms). */
  private firesOn(localMidnight: number): number[] {
    const date = new Date(localMidnight);
    const f = this.fields;
    const restrictedDom = f.dayOfMonth.length < 31;
    const restrictedDow = f.dayOfWeek.length < 7;
    const domOk = f.dayOfMonth.includes(date.getUTCDate());
    const dowOk = f.dayOfWeek.includes(date.getUTCDay());
    const dayOk = restrictedDom && restrictedDow ? domOk || dowOk : domOk && dowOk;
    if (!dayOk || !f.month.includes(date.getUTCMonth() + 1)) return [];
    const out = new Set<number>();
    for (const h of f.hour)
      for (const m of f.minute)
        for (const s of f.second) out.add(this.instantOf(localMidnight + ((h * 60 + m) * 60 + s) * 1000));
    return [...out].sort((a, b) => a - b);
  }

  /** Midnight of the local day containing `instant`, as wall-clock ms. */
  private localDay(instant: number): number {
    const wall = instant + this.offset(instant);
    return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
  }

  /** The instant of a local wall-clock time (compatible disambiguation, see above). */
  private instantOf(wall: number): number {
    const before = this.offset(wall - DAY_MS);
    const after = this.offset(wall + DAY_MS);
    const valid = [wall - before, wall - after].filter((t) => t + this.offset(t) === wall);
    return valid.length ? Math.min(...valid) : wall - before;
  }

  /** Local wall time minus UTC at `instant`, in ms. */
  private offset(instant: number): number {
    const whole = Math.floor(instant / 1000) * 1000;
    const p = Object.fromEntries(this.format.formatToParts(new Date(whole)).map((x) => [x.type, x.value]));
    const wall = Date.UTC(
      Number(p.year),
      Number(p.month) - 1,
      Number(p.day),
      Number(p.hour),
      Number(p.minute),
      Number(p.second),
    );
    return wall - whole;
  }
}
