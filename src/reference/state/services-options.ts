/**
 * Options of the services that the reference server's own options do not carry. Defaults are safe: plain-HTTP
 * webhook delivery is off unless `allowHttpLoopback` is set (or `VWH_REFERENCE_ALLOW_HTTP_WEBHOOKS=1`).
 */
export interface ServicesOptions {
  /**
   * Deliver workflow webhooks to loopback hosts (127.0.0.1, ::1, localhost) over plain HTTP: an `http://` URL is
   * accepted and an `https://` loopback URL registered through POST /webhooks is delivered as `http://`.
   */
  allowHttpLoopback: boolean;
  /** Per-attempt timeout of a webhook delivery (spec: the receiver answers within 10 s). */
  deliveryTimeoutMs: number;
  /** Waits before retry 1, 2, 3 on the injected Clock (exponential; spec: intervals not shown). */
  retryBackoffMs: readonly number[];
  /** Tasks pending or processing at once before POST /tasks answers 429 RATE_LIMIT_ERROR. */
  maxConcurrentTasks: number;
}

export function defaultServicesOptions(env: NodeJS.ProcessEnv = process.env): ServicesOptions {
  return {
    allowHttpLoopback: env.VWH_REFERENCE_ALLOW_HTTP_WEBHOOKS === '1',
    deliveryTimeoutMs: 10_000,
    retryBackoffMs: [2_000, 4_000, 8_000],
    maxConcurrentTasks: 5,
  };
}
