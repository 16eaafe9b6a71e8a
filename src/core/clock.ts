/**
 * The time seam. Production code asks a `Clock`; tests inject a `ManualClock` and move it, so nothing that depends
 * on time (rate windows, retries, cron, the reference world's simulated date) needs a real sleep.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay `setTimeout` accepts (2^31 - 1 ms, about 24.8 days); a longer one fires at once, with a warning. */
export const MAX_TIMER_MS = 2_147_483_647;

/** `ms` as a delay `setTimeout` honours: within [0, MAX_TIMER_MS], 0 for NaN. */
export function timerMs(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, timerMs(ms));
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

interface Sleeper {
  wakeAt: number;
  resolve: () => void;
}

/** A clock that only moves when told to. Sleepers wake, in order, as `advance` passes their wake time. */
export class ManualClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];

  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      // The listener goes when the sleeper wakes, so a loop sleeping on one long-lived signal does not pile them up.
      const sleeper: Sleeper = {
        wakeAt: this.current + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Moves time forward, waking every sleeper whose time has come (awaiting their continuations in between). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.sleepers.sort((a, b) => a.wakeAt - b.wakeAt);
      const next = this.sleepers[0];
      if (!next || next.wakeAt > target) break;
      this.sleepers.shift();
      this.current = next.wakeAt;
      next.resolve();
      await new Promise((r) => setImmediate(r));
    }
    this.current = target;
  }

  set(time: number | Date): void {
    this.current = typeof time === 'number' ? time : time.getTime();
  }

  get pendingSleepers(): number {
    return this.sleepers.length;
  }
}
