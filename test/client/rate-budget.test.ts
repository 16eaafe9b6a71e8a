import { describe, expect, it } from 'vitest';
import { keyIdFor, MemoryBudgetStore } from '../../src/client/budget-store.js';
import { type Permit, RateBudget } from '../../src/client/rate-budget.js';
import type { WaitEvent } from '../../src/client/wait-events.js';
import { ManualClock } from '../../src/core/clock.js';

/** Settles pending microtasks and immediates so a woken acquire has a chance to resolve. */
const tick = () => new Promise((r) => setImmediate(r));

function tracked<T>(promise: Promise<T>) {
  const state: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => {
    state.done = true;
    state.value = value;
  });
  return state;
}

async function takeAndRelease(budget: RateBudget, n: number): Promise<void> {
  for (let i = 0; i < n; i++) (await budget.acquire()).release();
}

describe('RateBudget on a ManualClock', () => {
  it('lets `limit` requests into a window and holds the next until the oldest leaves it', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 10, windowMs: 1000, marginMs: 1, clock });
    await takeAndRelease(budget, 10);
    expect(budget.available()).toBe(0);
    const next = tracked(budget.acquire());
    await tick();
    expect(next.done).toBe(false);
    await clock.advance(1000);
    await tick();
    expect(next.done).toBe(false);
    await clock.advance(1);
    await tick();
    expect(next.done).toBe(true);
    expect(budget.stats().acquired).toBe(11);
  });

  it('never has more than `limit` entries in any window under a steady stream of acquires', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 7, windowMs: 100, marginMs: 0, clock });
    const sent: number[] = [];
    const run = (async () => {
      for (let i = 0; i < 40; i++) {
        const permit = await budget.acquire();
        sent.push(clock.now());
        permit.release();
      }
    })();
    for (let i = 0; i < 100 && sent.length < 40; i++) {
      await tick();
      await clock.advance(10);
    }
    await run;
    for (const t of sent) expect(sent.filter((s) => s > t - 100 && s <= t).length).toBeLessThanOrEqual(7);
    // And it does not dawdle: 40 requests at 7 per 100 ms need 5 full windows after the first.
    expect((sent.at(-1) ?? 0) - (sent[0] ?? 0)).toBeLessThanOrEqual(600);
  });

  it('uses only floor(limit × share) of the window', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 70, share: 0.5, windowMs: 1000, clock });
    expect(budget.usable).toBe(35);
    await takeAndRelease(budget, 35);
    expect(budget.available()).toBe(0);
    expect(() => new RateBudget({ share: 0 })).toThrow(RangeError);
  });

  it('keeps a slot taken while its request is in flight, then counts it from its response', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 1, windowMs: 100, marginMs: 0, clock });
    const slow = await budget.acquire();
    const next = tracked(budget.acquire());
    await clock.advance(500);
    await tick();
    expect(next.done).toBe(false);
    // The response arrives at t=500: the server saw the request at some time up to then, so the slot frees at 600.
    slow.release();
    await tick();
    expect(next.done).toBe(false);
    await clock.advance(99);
    await tick();
    expect(next.done).toBe(false);
    await clock.advance(1);
    await tick();
    expect(next.done).toBe(true);
  });

  it('adds phantom entries when the server counts more requests than we sent (another user of the key)', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 10, windowMs: 1000, clock });
    const permit = await budget.acquire();
    permit.release();
    budget.observe({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3' }, permit.sentAt);
    expect(budget.used()).toBe(7);
    expect(budget.available()).toBe(3);
    expect(budget.stats().phantoms).toBe(6);
    // An older answer arriving late cannot shrink what a newer one said.
    await clock.advance(100);
    const later = await budget.acquire();
    later.release();
    budget.observe({ 'x-ratelimit-remaining': '8' }, -50);
    expect(budget.available()).toBe(2);
    // The newest answer says the other user has gone quiet: the phantoms go.
    budget.observe({ 'x-ratelimit-remaining': '8' }, later.sentAt);
    expect(budget.available()).toBe(8);
  });

  it('phantoms from the newest answer last one window from that answer', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 10, windowMs: 1000, marginMs: 0, clock });
    budget.observe({ 'x-ratelimit-remaining': '4' }, 0);
    await clock.advance(900);
    // Still 6 others in the server's window at t=900: they are re-stamped, not left to expire at t=1000.
    budget.observe({ 'x-ratelimit-remaining': '4' }, 900);
    await clock.advance(200);
    expect(budget.available()).toBe(4);
    await clock.advance(800);
    expect(budget.available()).toBe(10);
  });

  it('phantoms count against the key limit, not against our share', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 10, share: 0.5, windowMs: 1000, clock });
    budget.observe({ 'x-ratelimit-remaining': '7' });
    expect(budget.available()).toBe(5);
    budget.observe({ 'x-ratelimit-remaining': '2' });
    expect(budget.available()).toBe(2);
  });

  it('learns the limit from X-RateLimit-Limit (a premium key)', async () => {
    const budget = new RateBudget({ clock: new ManualClock(0) });
    expect(budget.limit).toBe(70);
    budget.observe({ 'x-ratelimit-limit': '350', 'x-ratelimit-remaining': '349' });
    expect(budget.limit).toBe(350);
    expect(budget.available()).toBe(349);
  });

  it('holds every request back until a Retry-After block has passed in full', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 10, windowMs: 1000, clock });
    const events: WaitEvent[] = [];
    budget.onWait((e) => events.push(e));
    budget.block(2500);
    const next = tracked(budget.acquire());
    await clock.advance(2499);
    await tick();
    expect(next.done).toBe(false);
    await clock.advance(1);
    await tick();
    expect(next.done).toBe(true);
    expect(events[0]).toMatchObject({ reason: 'retry-after', ms: 2500, until: 2500 });
    expect(budget.stats().waitMs).toBe(2500);
  });

  it('reports budget waits to listeners before sleeping', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 1, windowMs: 1000, marginMs: 0, clock });
    const events: WaitEvent[] = [];
    budget.onWait((e) => events.push(e));
    (await budget.acquire()).release();
    const next = tracked(budget.acquire());
    await tick();
    expect(events).toEqual([{ reason: 'budget', ms: 1000, until: 1000 }]);
    await clock.advance(1000);
    await tick();
    expect(next.done).toBe(true);
  });

  it('rejects a waiting acquire when its signal aborts', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 1, windowMs: 1000, clock });
    (await budget.acquire()).release();
    const controller = new AbortController();
    const next = budget.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(next).rejects.toThrow('stop');
    expect(clock.pendingSleepers).toBe(0);
  });

  it('persists its window: a budget loaded after a restart does not burst', async () => {
    const clock = new ManualClock(10_000);
    const store = new MemoryBudgetStore();
    const keyId = keyIdFor('vwh_live_0123456789abcdefghijklmnop');
    const first = new RateBudget({ limit: 5, windowMs: 1000, marginMs: 0, clock, store, keyId });
    await takeAndRelease(first, 3);
    await clock.advance(400);
    await takeAndRelease(first, 2);
    await first.flush();
    expect(await store.load(keyId)).toEqual([10_000, 10_000, 10_000, 10_400, 10_400]);

    await clock.advance(100); // "restart" at 10 500
    const second = await RateBudget.load({ limit: 5, windowMs: 1000, marginMs: 0, clock, store, keyId });
    expect(second.available()).toBe(0);
    const next = tracked(second.acquire());
    await clock.advance(499);
    await tick();
    expect(next.done).toBe(false);
    await clock.advance(1); // 11 000: the three requests of t=10 000 leave the window
    await tick();
    expect(next.done).toBe(true);
    expect(second.available()).toBe(2);
  });

  it('spaces its saves (saveEveryMs) without losing the last state: flush writes it', async () => {
    const clock = new ManualClock(10_000);
    let saves = 0;
    const store = new MemoryBudgetStore();
    const counting = {
      load: (k: string) => store.load(k),
      save: (k: string, t: number[]) => {
        saves++;
        return store.save(k, t);
      },
    };
    const budget = new RateBudget({
      limit: 100,
      windowMs: 1000,
      clock,
      store: counting,
      keyId: 'k',
      saveEveryMs: 60_000,
    });
    await takeAndRelease(budget, 40);
    await tick();
    // 80 changes (take and release of 40 requests): one save at once, the rest held back for the spacing.
    expect(saves).toBe(1);
    await budget.flush();
    expect(saves).toBe(2);
    expect(await store.load('k')).toHaveLength(40);
  });

  it('drops stored timestamps that already left the window', async () => {
    const clock = new ManualClock(100_000);
    const store = new MemoryBudgetStore();
    await store.save('k', [1_000, 50_000, 99_000]);
    const budget = await RateBudget.load({ limit: 5, windowMs: 60_000, clock, store, keyId: 'k' });
    expect(budget.used()).toBe(2);
  });

  it('names a key without revealing it', () => {
    const key = 'vwh_live_0123456789abcdefghijklmnop';
    const id = keyIdFor(key);
    expect(id.startsWith('vwh_live_012')).toBe(true);
    expect(id).not.toContain(key.slice(12, 20));
    expect(keyIdFor(key)).toBe(id);
    expect(keyIdFor('short-key')).not.toContain('short-key');
  });

  it('permits are released once only', async () => {
    const clock = new ManualClock(0);
    const budget = new RateBudget({ limit: 2, windowMs: 1000, clock });
    const permit: Permit = await budget.acquire();
    permit.release();
    await clock.advance(10);
    permit.release(5_000);
    expect(budget.snapshot()).toEqual([0]);
  });
});
