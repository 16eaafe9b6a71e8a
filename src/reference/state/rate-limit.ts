/**
 * The per-key sliding window (spec "Limits"): standard 60/min + burst 10 = 70, premium 300 + 50 = 350 requests in
 * any window of `windowMs` (60 s, scalable for tests). Runs on the injected Clock.
 */
import type { Clock } from '../../core/clock.js';
import type { Tier } from './accounts.js';

export const TIER_LIMITS: Record<Tier, number> = { standard: 70, premium: 350 };

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until a slot frees (only when refused). */
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    readonly windowMs: number,
  ) {}

  take(keyId: string, tier: Tier): RateDecision {
    const limit = TIER_LIMITS[tier];
    const now = this.clock.now();
    const since = now - this.windowMs;
    const kept = (this.hits.get(keyId) ?? []).filter((t) => t > since);
    if (kept.length >= limit) {
      this.hits.set(keyId, kept);
      const oldest = kept[kept.length - limit] ?? now;
      const waitMs = oldest + this.windowMs - now;
      return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    kept.push(now);
    this.hits.set(keyId, kept);
    return { allowed: true, limit, remaining: limit - kept.length, retryAfterSeconds: 0 };
  }

  reset(): void {
    this.hits.clear();
  }
}
