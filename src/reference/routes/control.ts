/**
 * The control plane under `/_reference/` (never under the public base path; no key needed). See
 * docs/reference-server.md for each call; the operations themselves live in control/ops.ts.
 */
import { Hono } from 'hono';
import * as ops from '../control/ops.js';
import { fail, onError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import { truthRoutes } from './truth.js';

async function body(c: { req: { text(): Promise<string> } }): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail(400, (error as Error).message);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail(400, 'body: object');
  return value as Record<string, unknown>;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

export function controlApp(state: ReferenceState): Hono {
  const app = new Hono();
  app.onError(onError);

  app.get('/clock', (c) => c.json(ops.clockNow(state)));
  app.post('/clock', async (c) => {
    const b = await body(c);
    const days = num(b.advance_days);
    const seconds = num(b.advance_seconds);
    if (days === undefined && seconds === undefined) throw fail(400, 'advance_days or advance_seconds');
    const out = ops.advanceClock(state, { days, seconds });
    await state.background.idle();
    return c.json(out);
  });

  app.post('/keys', async (c) => {
    const b = await body(c);
    return c.json(
      ops.updateKey(state, str(b.api_key) ?? '', {
        status: b.status as ops.KeyChange['status'],
        expires_at: b.expires_at as string | null | undefined,
        expired: b.expired === true,
        tier: b.tier as ops.KeyChange['tier'],
        role: b.role as ops.KeyChange['role'],
      }),
    );
  });
  app.post('/keys/mint', async (c) => {
    const b = await body(c);
    return c.json(
      ops.mintKey(state, {
        apiKey: str(b.api_key),
        teamId: str(b.team_id),
        role: b.role as 'admin' | 'viewer' | undefined,
        tier: b.tier as 'standard' | 'premium' | undefined,
      }),
    );
  });

  app.get('/faults', (c) => c.json(state.faults.describe()));
  app.put('/faults', async (c) => c.json(ops.setFaults(state, str((await body(c)).spec) ?? null)));
  app.delete('/faults', (c) => c.json(ops.setFaults(state, null)));

  app.post('/teams/:team_id/plan', async (c) =>
    c.json(ops.setTeamPlan(state, c.req.param('team_id'), str((await body(c)).plan) ?? '')),
  );
  app.post('/memberships', async (c) => {
    const b = await body(c);
    const role = b.role === 'viewer' ? 'viewer' : 'admin';
    return c.json(ops.setMembership(state, str(b.email) ?? '', str(b.team_id) ?? '', role));
  });
  app.post('/auth-outage', async (c) => c.json(ops.setAuthOutage(state, (await body(c)).enabled === true)));
  app.get('/projects/:project_id/bootstrap', (c) => c.json(ops.bootstrapStatus(state, c.req.param('project_id'))));
  app.get('/callbacks', (c) => c.json({ callbacks: state.callbacks }));
  app.post('/idle', async (c) => {
    await state.background.idle();
    return c.json({ pending: state.background.pending });
  });
  app.post('/reset', (c) => c.json(ops.resetState(state)));
  truthRoutes(app, state);
  app.notFound((c) => c.json({ detail: 'Unknown control-plane call' }, 404));
  return app;
}
