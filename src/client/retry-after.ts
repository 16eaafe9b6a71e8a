/** As dlt's default: five minutes is as long as a sync holding the warehouse should wait for one request. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 300_000;

/**
 * How long a 429 asks us to wait. `Retry-After` is seconds (fractions accepted: a reference server with a scaled
 * window may send `0.25`) or an HTTP date; the detail text `Retry after N seconds.` is the fallback.
 */
export function retryAfterMs(
  headerValue: string | undefined,
  detail: string | undefined,
  now: number,
): number | undefined {
  const header = headerValue?.trim();
  if (header) {
    if (/^\d+(\.\d+)?$/.test(header)) return Math.ceil(Number(header) * 1000);
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const match = detail?.match(/retry after (\d+(?:\.\d+)?) seconds?/i);
  if (match?.[1]) return Math.ceil(Number(match[1]) * 1000);
  return undefined;
}
