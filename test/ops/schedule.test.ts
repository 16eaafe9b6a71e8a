/**
 * The schedule on an injected clock: cron instants across both DST change days (Europe/Berlin, America/New_York),
 * firing once per night, catch-up from the ledger at start and after the machine slept (policy latest and skip), and
 * a clean stop.
 */
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { type Clock, ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/log.js';
import { CronTrigger } from '../../src/ops/cron.js';
import type { Trigger } from '../../src/ops/ledger.js';
import { runScheduler } from '../../src/ops/scheduler.js';
import { capture, quiet } from './support.js';

const iso = (ms: number) => new Date(ms).toISOString();

function fires(t: CronTrigger, from: number, count: number): string[] {
  const out: string[] = [];
  let at = from;
  for (let i = 0; i < count; i++) {
    at = t.next(at);
    out.push(iso(at));
  }
  return out;
}

describe('CronTrigger', () => {
  it('fires a nightly 02:30 Berlin job once on the spring-forward day (in the gap: 03:30 CEST) and once on fall-back', () => {
    const t = new CronTrigger('30 2 * * *', 'Europe/Berlin');
    expect(fires(t, Date.UTC(2026, 2, 27, 12), 3)).toEqual([
      '2026-03-28T01:30:00.000Z', // CET
      '2026-03-29T01:30:00.000Z', // 02:30 does not exist: 03:30 CEST
      '2026-03-30T00:30:00.000Z', // CEST
    ]);
    expect(fires(t, Date.UTC(2026, 9, 23, 12), 3)).toEqual([
      '2026-10-24T00:30:00.000Z', // CEST
      '2026-10-25T00:30:00.000Z', // 02:30 happens twice: the first (CEST) only
      '2026-10-26T01:30:00.000Z', // CET
    ]);
  });

  it('does the same in New York, for a time inside each transition', () => {
    const spring = new CronTrigger('0 2 * * *', 'America/New_York');
    expect(fires(spring, Date.UTC(2026, 2, 7, 12), 2)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:00:00.000Z',
    ]);
    const fall = new CronTrigger('30 1 * * *', 'America/New_York');
    expect(fires(fall, Date.UTC(2026, 9, 31, 12), 2)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('knows the last firing before an instant, weekday lists, and refuses bad expressions and zones', () => {
    const t = new CronTrigger('0 3 * * 1-5', 'UTC');
    // Sunday 2026-03-15 10:00: the last weekday firing was Friday 03:00
    expect(iso(t.previous(Date.UTC(2026, 2, 15, 10)) ?? 0)).toBe('2026-03-13T03:00:00.000Z');
    expect(iso(t.next(Date.UTC(2026, 2, 13, 3)))).toBe('2026-03-16T03:00:00.000Z');
    expect(() => new CronTrigger('61 2 * * *')).toThrow(/not a cron expression/);
    expect(() => new CronTrigger('0 2 * * *', 'Mars/Olympus')).toThrow(/not an IANA time zone/);
  });
});

/** A clock whose wall time can jump ahead of its sleepers, as after a suspend. */
class SuspendableClock implements Clock {
  private jumped = 0;
  constructor(readonly inner: ManualClock) {}
  now(): number {
    return this.inner.now() + this.jumped;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.inner.sleep(ms, signal);
  }
  suspend(ms: number): void {
    this.jumped += ms;
  }
}

function harness(
  start: number,
  opts: { catchUp?: 'latest' | 'skip'; lastFinished?: number; cron?: string; tz?: string } = {},
) {
  const manual = new ManualClock(start);
  const clock = new SuspendableClock(manual);
  const runs: Array<{ trigger: Trigger; at: string; due: string }> = [];
  let last = opts.lastFinished;
  const stop = new AbortController();
  const done = runScheduler({
    trigger: new CronTrigger(opts.cron ?? '30 2 * * *', opts.tz ?? 'Europe/Berlin'),
    clock,
    catchUp: opts.catchUp ?? 'latest',
    logger: quiet,
    stop: stop.signal,
    lastFinished: async () => last,
    job: async (trigger, due) => {
      runs.push({ trigger, at: iso(clock.now()), due: iso(due) });
      last = clock.now();
    },
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return { manual, clock, runs, stop, done, settle };
}

describe('what the schedule says', () => {
  it('the next run in its zone and in UTC, a final stopped line, and a bad --cron named as the flag', async () => {
    const t = new CronTrigger('30 2 * * *', 'Europe/Berlin');
    expect(t.describe(Date.UTC(2026, 10, 26, 1, 30))).toBe('2026-11-26 02:30 Europe/Berlin (2026-11-26 01:30 UTC)');
    expect(new CronTrigger('30 2 * * *').describe(Date.UTC(2026, 10, 26, 2, 30))).toBe('2026-11-26 02:30 UTC');

    const { out, text } = capture();
    const stop = new AbortController();
    const manual = new ManualClock(Date.UTC(2026, 10, 25, 12));
    const done = runScheduler({
      trigger: t,
      clock: manual,
      catchUp: 'skip',
      logger: createLogger({ format: 'json', stream: out }),
      stop: stop.signal,
      lastFinished: async () => Date.UTC(2026, 10, 25, 1, 30),
      job: async () => {},
    });
    await new Promise((r) => setImmediate(r));
    stop.abort();
    await manual.advance(60_000);
    await done;
    const messages = text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).msg as string);
    expect(messages).toContain('schedule armed: next run 2026-11-26 02:30 Europe/Berlin (2026-11-26 01:30 UTC)');
    expect(messages.at(-1)).toMatch(/^schedule stopped/);

    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['node', 'vwh', 'schedule', '--cron', 'every night', '--once'])).toBe(64);
      expect(String(err.mock.calls.map((c) => c[0]).join(''))).toMatch(/--cron "every night" is not a cron expression/);
    } finally {
      err.mockRestore();
    }
  });
});

describe('runScheduler', () => {
  it('fires once a night across both Berlin DST days, on the injected clock', async () => {
    // Started after the night of 2026-03-27 was served: no catch-up.
    const h = harness(Date.UTC(2026, 2, 27, 12), { lastFinished: Date.UTC(2026, 2, 27, 1, 30) });
    await h.settle();
    await h.manual.advance(4 * 86_400_000);
    expect(h.runs.map((r) => [r.trigger, r.at])).toEqual([
      ['schedule', '2026-03-28T01:30:00.000Z'],
      ['schedule', '2026-03-29T01:30:00.000Z'],
      ['schedule', '2026-03-30T00:30:00.000Z'],
      ['schedule', '2026-03-31T00:30:00.000Z'],
    ]);
    h.stop.abort();
    await h.manual.advance(60_000);
    await h.done;
  });

  it('fall-back night: one run, not two', async () => {
    const h = harness(Date.UTC(2026, 9, 24, 12), { lastFinished: Date.UTC(2026, 9, 24, 0, 30) });
    await h.settle();
    await h.manual.advance(2 * 86_400_000);
    expect(h.runs.map((r) => r.at)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    h.stop.abort();
    await h.manual.advance(60_000);
    await h.done;
  });

  it('catches up at start from the ledger (latest: once, now), and runs nothing more until the next firing', async () => {
    const start = Date.UTC(2026, 5, 10, 9);
    const h = harness(start, { lastFinished: Date.UTC(2026, 5, 7, 0, 30), tz: 'UTC' });
    await h.settle();
    expect(h.runs).toEqual([{ trigger: 'catch-up', at: iso(start), due: '2026-06-10T02:30:00.000Z' }]);
    await h.manual.advance(16 * 3_600_000);
    expect(h.runs.map((r) => r.trigger)).toEqual(['catch-up']);
    await h.manual.advance(2 * 3_600_000);
    expect(h.runs.map((r) => `${r.trigger} ${r.at}`)).toEqual([
      `catch-up ${iso(start)}`,
      'schedule 2026-06-11T02:30:00.000Z',
    ]);
    h.stop.abort();
    await h.manual.advance(60_000);
    await h.done;
  });

  it('after a sleep over the firing it catches up once (latest), or waits for the next firing (skip)', async () => {
    for (const policy of ['latest', 'skip'] as const) {
      const start = Date.UTC(2026, 5, 10, 20);
      const h = harness(start, { lastFinished: Date.UTC(2026, 5, 10, 2, 30), tz: 'UTC', catchUp: policy });
      await h.settle();
      await h.manual.advance(60_000);
      h.clock.suspend(10 * 3_600_000); // the laptop sleeps from 20:01 to 06:01, over 02:30
      await h.manual.advance(60_000);
      expect(
        h.runs.map((r) => r.trigger),
        policy,
      ).toEqual(policy === 'latest' ? ['catch-up'] : []);
      h.stop.abort();
      await h.manual.advance(60_000);
      await h.done;
    }
  });
});
