import type { ManualClock } from '../../../src/core/clock.js';

/**
 * Runs `promise` to completion on a ManualClock: whenever something sleeps on the clock, moves it on by `stepMs`;
 * otherwise lets real I/O (the HTTP round trip) happen.
 */
export async function drive<T>(clock: ManualClock, promise: Promise<T>, stepMs = 1_000): Promise<T> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled) {
    if (clock.pendingSleepers > 0) await clock.advance(stepMs);
    else await new Promise((r) => setTimeout(r, 1));
  }
  return promise;
}
