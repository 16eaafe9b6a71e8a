/**
 * The server side of a sliding-window rate limit, as the spec describes it ("sliding 60 seconds, per key"), with a
 * scaled window: arrivals older than `windowMs` leave the window; beyond `limit`, 429 with `Retry-After`.
 */
export class SlidingWindow {
  private arrivals: number[] = [];
  rejected = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** Requests someone else keeps in the window at all times (another user of the key). */
    readonly foreign = 0,
  ) {}

  /** Admits a request at `now` or tells how long until a slot frees. */
  admit(now: number): { ok: true; remaining: number } | { ok: false; retryAfterMs: number } {
    this.arrivals = this.arrivals.filter((t) => t > now - this.windowMs);
    if (this.arrivals.length + this.foreign >= this.limit) {
      this.rejected++;
      const oldest = this.arrivals[0] ?? now;
      return { ok: false, retryAfterMs: Math.max(1, oldest + this.windowMs - now) };
    }
    this.arrivals.push(now);
    return { ok: true, remaining: this.limit - this.foreign - this.arrivals.length };
  }
}
