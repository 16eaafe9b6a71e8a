import type { Logger } from '../core/log.js';

/** Interval of the progress line a long step logs while DuckDB works (the project asks for one at least every 30 s). */
export const HEARTBEAT_MS = 10_000;

/**
 * Runs `fn` and, while it runs, logs `msg` with the elapsed seconds every HEARTBEAT_MS: a single COPY of a large
 * table can take minutes, and DuckDB works off the event loop, so the timer fires meanwhile.
 */
export async function withHeartbeat<T>(
  log: Logger,
  msg: string,
  fields: Record<string, unknown>,
  fn: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => {
    log.info(msg, { ...fields, elapsed_s: Math.round((Date.now() - started) / 1000) });
  }, HEARTBEAT_MS);
  timer.unref();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
