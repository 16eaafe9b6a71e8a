/**
 * A proactive sliding-window limiter for one API key (spec "Limits": sliding 60 s, 70 standard / 350 premium).
 *
 * The window holds one entry per request: open while the request is in flight (it holds its slot and cannot
 * expire), then stamped with the time its response arrived. The server saw the request somewhere between sending
 * and that moment, so our entry never leaves the window before the server's does: no 429 when we are the key's only
 * user, whatever the latency. `observe` corrects from `X-RateLimit-Remaining` (someone else uses the key: phantom
 * entries), `block` honours a 429's `Retry-After` in full, and a `BudgetStore` keeps the window across restarts.
 */
import { type Clock, systemClock } from '../core/clock.js';
import { BudgetSaver } from './budget-saver.js';
import type { BudgetStore } from './budget-store.js';
import { WaitEmitter, type WaitEvent, type WaitListener, type WaitReason } from './wait-events.js';

/** Least time between two saves of the window (see `RateBudgetOptions.saveEveryMs`). */
export const DEFAULT_SAVE_EVERY_MS = 1000;

export const TIER_LIMITS = { standard: 70, premium: 350 } as const;
/** Why a waiter was woken before its time (a release or a block): it re-checks the window. */
const WOKEN = Symbol('woken early');
export type RateTier = keyof typeof TIER_LIMITS;

export interface RateBudgetOptions {
  /** Requests per window the key may make (default 70, or the tier's). `X-RateLimit-Limit` overrides it. */
  limit?: number;
  tier?: RateTier;
  /** Window length (default 60 000 ms; scaled down in tests and benchmarks with `--rate-window-ms`). */
  windowMs?: number;
  /** Part of the window this process may use, 0 < share <= 1 (default 1): `usable = floor(limit × share)`. */
  share?: number;
  clock?: Clock;
  /** Persistence of the window; with `keyId`. Saves are coalesced, at most one in flight. */
  store?: BudgetStore;
  /**
   * Least time between two saves (default 1 s, whatever the window): a kill -9 forgets at most the requests of that
   * last second (one or two at 70 per minute). Not a share of the window: at a scaled window a share of it was a
   * DuckDB commit for nearly every request of a backfill (docs/lab/2026-11-sync-landing-memory.md).
   */
  saveEveryMs?: number;
  keyId?: string;
  /** Added to every expiry to absorb clock granularity at the server's window edge (default windowMs / 1000, >= 1). */
  marginMs?: number;
  /** Adopt the server's `X-RateLimit-Limit` (default true). */
  learnLimit?: boolean;
}

/** A slot taken by `acquire`; `release` once the response (or the failure) is in. */
export interface Permit {
  readonly sentAt: number;
  release(at?: number): void;
}

export interface RateBudgetStats {
  acquired: number;
  /** Entries added because the server counted more requests than we sent (another user of the key). */
  phantoms: number;
  blocks: number;
  waits: Record<WaitReason, number>;
  /** Time during which at least one caller was waiting in `acquire`. */
  waitMs: number;
}

interface Entry {
  /** Open: when sent. Closed: when the response (or failure) came. */
  t: number;
  /** When the request was sent (restored and phantom entries: their `t`). */
  sent: number;
  open: boolean;
  phantom: boolean;
}

export class RateBudget {
  private limitValue: number;
  readonly windowMs: number;
  readonly share: number;
  readonly marginMs: number;
  private readonly clock: Clock;
  private readonly learnLimit: boolean;
  private entries: Entry[] = [];
  private blockedUntil = 0;
  /** Send time of the observation the current phantoms come from. */
  private phantomsAsOf = Number.NEGATIVE_INFINITY;
  private readonly wakers = new Set<AbortController>();
  private readonly emitter = new WaitEmitter();
  private lastEmitted = '';
  private waiting = 0;
  private waitingSince = 0;
  private readonly saver: BudgetSaver | undefined;
  private readonly counters: RateBudgetStats = {
    acquired: 0,
    phantoms: 0,
    blocks: 0,
    waits: { budget: 0, 'retry-after': 0, backoff: 0 },
    waitMs: 0,
  };

  constructor(options: RateBudgetOptions = {}) {
    this.limitValue = positiveInt(options.limit) ?? TIER_LIMITS[options.tier ?? 'standard'];
    this.windowMs = positiveInt(options.windowMs) ?? 60_000;
    const share = options.share ?? 1;
    if (!(share > 0 && share <= 1)) throw new RangeError(`budget share must be in (0, 1], got ${share}`);
    this.share = share;
    this.marginMs = options.marginMs ?? Math.max(1, Math.round(this.windowMs / 1000));
    this.clock = options.clock ?? systemClock;
    this.learnLimit = options.learnLimit ?? true;
    if (options.store && !options.keyId) throw new TypeError('a RateBudget with a store needs a keyId');
    if (options.store && options.keyId) {
      const everyMs = options.saveEveryMs ?? DEFAULT_SAVE_EVERY_MS;
      this.saver = new BudgetSaver(options.store, options.keyId, () => this.snapshot(), everyMs);
    }
  }

  /** A budget whose window starts from what the store kept for `keyId`: a restart inside the window does not burst. */
  static async load(options: RateBudgetOptions & { store: BudgetStore; keyId: string }): Promise<RateBudget> {
    const budget = new RateBudget(options);
    const saved = await options.store.load(options.keyId);
    budget.restore(saved);
    return budget;
  }

  get limit(): number {
    return this.limitValue;
  }

  /** Requests of our own allowed in one window: `floor(limit × share)`, at least 1. */
  get usable(): number {
    return Math.max(1, Math.floor(this.limitValue * this.share));
  }

  /** Entries the window counts now (ours, in flight or done, and phantoms). */
  used(): number {
    return this.live(this.clock.now()).length;
  }

  /** Requests that could start now without waiting. */
  available(): number {
    const now = this.clock.now();
    if (this.blockedUntil > now) return 0;
    const live = this.live(now);
    const own = live.filter((e) => !e.phantom).length;
    return Math.max(0, Math.min(this.usable - own, this.limitValue - live.length));
  }

  /** Clock time until which a `Retry-After` holds every request back (0 when not blocked). */
  get blockedUntilTime(): number {
    return this.blockedUntil > this.clock.now() ? this.blockedUntil : 0;
  }

  stats(): RateBudgetStats {
    const open = this.waiting > 0 ? this.clock.now() - this.waitingSince : 0;
    return { ...this.counters, waits: { ...this.counters.waits }, waitMs: this.counters.waitMs + open };
  }

  onWait(listener: WaitListener): () => void {
    return this.emitter.on(listener);
  }

  /** Waits until the window has a free slot (and any `Retry-After` has passed), then takes it. */
  async acquire(signal?: AbortSignal): Promise<Permit> {
    this.enterWait();
    try {
      for (;;) {
        signal?.throwIfAborted();
        const now = this.clock.now();
        if (this.blockedUntil > now) {
          await this.wait(this.blockedUntil - now, 'retry-after', signal);
          continue;
        }
        const live = this.live(now);
        const own = live.filter((e) => !e.phantom).length;
        const ownFull = own >= this.usable;
        const keyFull = live.length >= this.limitValue;
        if (!ownFull && !keyFull) return this.take(now);
        // The binding constraint decides which entries can free a slot: our own (share) or any (the key's limit).
        let wake = Number.POSITIVE_INFINITY;
        for (const e of live) {
          if (e.open || (ownFull && e.phantom)) continue;
          wake = Math.min(wake, e.t + this.windowMs + this.marginMs);
        }
        // Every counted entry is in flight: a release will wake us (the window length is only a safety net).
        const ms = Number.isFinite(wake) ? wake - now : this.windowMs;
        await this.wait(ms, 'budget', signal);
      }
    } finally {
      this.leaveWait();
    }
  }

  /**
   * Corrects the window from a response's rate-limit headers (`sentAt`: when that request was sent). What the
   * server counts beyond our own requests is someone else's use of the key; it is held as phantom entries stamped
   * now (their real age is unknown: now is the safe guess). The newest observation replaces the phantoms (the other
   * user's current use, expiring one window from now); an older one arriving late can only add to them.
   * Not for 429 responses: those go to `block`.
   */
  observe(headers: Record<string, string | undefined>, sentAt?: number): void {
    const limit = positiveInt(num(headers['x-ratelimit-limit']));
    if (limit && this.learnLimit && limit !== this.limitValue) this.limitValue = limit;
    const remaining = num(headers['x-ratelimit-remaining']);
    if (remaining === undefined || remaining < 0) return;
    const now = this.clock.now();
    const sent = Math.min(sentAt ?? now, now);
    // The server counted when the request arrived, at or after `sent`: our own requests are compared as of then
    // (those that left our window since were still counted there).
    const serverUsed = (limit ?? this.limitValue) - Math.floor(remaining);
    const ownThen = this.live(sent).filter((e) => !e.phantom);
    const others = Math.max(0, serverUsed - ownThen.length);
    const phantoms = this.live(now).filter((e) => e.phantom);
    if (sent >= this.phantomsAsOf) {
      this.phantomsAsOf = sent;
      if (others === 0 && phantoms.length === 0) return;
      this.entries = this.entries.filter((e) => !e.phantom);
      this.addPhantoms(others, now);
      // Our requests sent more than a window ago may already have left the server's window while still in ours:
      // then the other user holds their slots too. Cover each with a phantom that leaves together with it.
      if (others > 0) {
        for (const e of ownThen) if (!e.open && e.sent <= now - this.windowMs) this.addPhantoms(1, e.t);
      }
      this.counters.phantoms += Math.max(0, others - phantoms.length);
    } else if (others > phantoms.length) {
      this.addPhantoms(others - phantoms.length, now);
      this.counters.phantoms += others - phantoms.length;
    } else {
      return;
    }
    this.changed();
    this.wakeAll();
  }

  /** No request goes out before `now + ms` (a 429's `Retry-After`, honoured in full). */
  block(ms: number): void {
    const until = this.clock.now() + Math.max(0, ms);
    if (until > this.blockedUntil) this.blockedUntil = until;
    this.counters.blocks++;
    this.wakeAll();
  }

  /** Epoch-ms timestamps the window counts now (what the store saves). In-flight requests count as sent now. */
  snapshot(): number[] {
    const now = this.clock.now();
    return this.live(now)
      .map((e) => (e.open ? now : e.t))
      .sort((a, b) => a - b);
  }

  /** Waits for pending saves; rethrows the last save error, if any. */
  async flush(): Promise<void> {
    await this.saver?.flush();
  }

  private restore(timestamps: number[]): void {
    const now = this.clock.now();
    for (const t of timestamps) {
      // A timestamp in the future (a clock stepped back) counts as now.
      if (Number.isFinite(t))
        this.entries.push({ t: Math.min(t, now), sent: Math.min(t, now), open: false, phantom: false });
    }
    this.entries.sort((a, b) => a.t - b.t);
    this.prune(now);
  }

  private addPhantoms(count: number, at: number): void {
    for (let i = 0; i < count; i++) this.entries.push({ t: at, sent: at, open: false, phantom: true });
  }

  private take(now: number): Permit {
    const entry: Entry = { t: now, sent: now, open: true, phantom: false };
    this.entries.push(entry);
    this.counters.acquired++;
    this.changed();
    let released = false;
    return {
      sentAt: now,
      release: (at?: number) => {
        if (released) return;
        released = true;
        entry.open = false;
        entry.t = Math.max(now, at ?? this.clock.now());
        this.changed();
        this.wakeAll();
      },
    };
  }

  /** Entries the window counts at time `at`: in flight, or stamped less than a window (plus margin) before. */
  private live(at: number): Entry[] {
    this.prune(this.clock.now());
    const horizon = at - this.windowMs - this.marginMs;
    return this.entries.filter((e) => e.open || e.t > horizon);
  }

  /** Forgets entries two windows old: one window of history serves `observe` for requests long in flight. */
  private prune(now: number): void {
    const horizon = now - 2 * (this.windowMs + this.marginMs);
    if (this.entries.some((e) => !e.open && e.t <= horizon)) {
      this.entries = this.entries.filter((e) => e.open || e.t > horizon);
    }
  }

  private async wait(ms: number, reason: WaitReason, signal: AbortSignal | undefined): Promise<void> {
    const until = this.clock.now() + ms;
    const tag = `${reason}:${until}`;
    if (tag !== this.lastEmitted) {
      this.lastEmitted = tag;
      this.counters.waits[reason]++;
      this.emitter.emit({ reason, ms, until } satisfies WaitEvent);
    }
    const waker = new AbortController();
    const onAbort = () => waker.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.wakers.add(waker);
    try {
      await this.clock.sleep(ms, waker.signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!waker.signal.aborted) throw error;
      // Woken early by a release or a block: the caller re-checks the window.
    } finally {
      this.wakers.delete(waker);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private wakeAll(): void {
    // A reason of our own: without one each abort builds a DOMException with its stack, once per release and waiter
    // (a visible share of a backfill's profile: docs/lab/2026-11-code-constants.md#the-sync).
    for (const waker of this.wakers) waker.abort(WOKEN);
    this.wakers.clear();
  }

  // Wait time is counted while at least one caller is inside `acquire`; a slot free at once adds 0 ms.
  private enterWait(): void {
    if (this.waiting++ === 0) this.waitingSince = this.clock.now();
  }

  private leaveWait(): void {
    if (--this.waiting === 0) this.counters.waitMs += this.clock.now() - this.waitingSince;
  }

  private changed(): void {
    this.saver?.changed();
  }
}

function num(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function positiveInt(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}
