/**
 * The control plane (`/_reference/…`: the clock, reset, faults, ground truth, and keys for any team) is the
 * reference's back door. On a loopback host only this machine reaches it. On any other host the server refuses to
 * start unless told `allowRemoteControl`, and then every control-plane call must carry the control token printed
 * at start (`X-Reference-Token: <token>` or `Authorization: Bearer <token>`).
 */
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { VwhError } from '../../core/errors.js';

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** Hosts that listen on every interface of the machine. */
export function isWildcardHost(host: string): boolean {
  return ['0.0.0.0', '::', '[::]'].includes(host.trim());
}

/** Throws (USAGE) when `host` exposes the control plane and that was not allowed. */
export function checkControlExposure(host: string, allowRemoteControl: boolean): void {
  if (isLoopbackHost(host) || allowRemoteControl) return;
  throw new VwhError(
    'USAGE',
    `--host ${host} is not a loopback address: the control plane (/_reference/: clock, reset, API keys for any team) would be reachable from other machines. Listen on 127.0.0.1, or pass --allow-remote-control to require the control token printed at start on every /_reference/ call.`,
  );
}

export function controlGuard(token: string | null): MiddlewareHandler {
  const expected = token === null ? null : Buffer.from(token);
  return async (c, next) => {
    if (expected === null) return next();
    const given =
      c.req.header('x-reference-token') ?? /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    const candidate = Buffer.from(given ?? '');
    if (candidate.length !== expected.length || !timingSafeEqual(candidate, expected)) {
      return c.json(
        { detail: 'Control plane: missing or wrong X-Reference-Token (printed by vwh serve at start)' },
        401,
      );
    }
    return next();
  };
}
