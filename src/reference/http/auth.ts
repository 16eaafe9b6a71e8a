/**
 * `X-API-Key` on every public endpoint but account and key creation, with the spec's exact 401 details; then the
 * sliding-window rate limit; then `X-RateLimit-*` and `X-Credit-Available` on every authenticated response.
 */
import type { MiddlewareHandler } from 'hono';
import { fail, HttpError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ApiEnv } from './env.js';

const OPEN_PATHS = new Set(['/account/create', '/account/api-key', '/openapi.json']);

export function authAndLimits(state: ReferenceState, basePath: string): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const rel = c.req.path.slice(basePath.length);
    if (OPEN_PATHS.has(rel)) return next();
    const raw = c.req.header('x-api-key');
    if (raw === undefined || raw.trim() === '') throw fail(401, 'Missing X-API-Key header');
    const key = state.accounts.findKey(raw.trim());
    if (!key) throw fail(401, 'Invalid API key');
    if (key.status === 'inactive') throw fail(401, 'API key is inactive');
    if (key.expires_at !== null && key.expires_at <= state.sim.now()) throw fail(401, 'API key has expired');
    const team = state.accounts.teams.get(key.team_id);
    if (!team) throw fail(401, 'Invalid API key');

    const decision = state.rate.take(key.id, key.tier);
    const credits = () => String(state.accounts.creditsAvailable(team, state.month()));
    if (!decision.allowed) {
      const seconds = decision.retryAfterSeconds;
      throw new HttpError(
        429,
        { detail: `Rate limit exceeded. Retry after ${seconds} seconds.` },
        {
          'Retry-After': String(seconds),
          'X-RateLimit-Limit': String(decision.limit),
          'X-RateLimit-Remaining': '0',
          'X-Credit-Available': credits(),
        },
      );
    }
    c.set('key', key);
    c.set('team', team);
    await next();
    c.header('X-RateLimit-Limit', String(decision.limit));
    c.header('X-RateLimit-Remaining', String(decision.remaining));
    c.header('X-Credit-Available', credits());
  };
}
