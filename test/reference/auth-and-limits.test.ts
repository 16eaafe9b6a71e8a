/** X-API-Key (the four 401 details), team scoping, roles, the sliding rate window and its headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { del, expectError, firstProject, get, post, start } from './support.js';

describe('authentication and scoping', () => {
  let server: ReferenceServer;
  let projectId: string;
  beforeAll(async () => {
    server = await start();
    ({ projectId } = await firstProject(server));
  });
  afterAll(() => server.close());

  it('answers 401 Missing X-API-Key header without a key', async () => {
    expectError(await get(server, '/projects', null), 401, 'Missing X-API-Key header');
  });

  it('answers 401 Invalid API key for an unknown key', async () => {
    expectError(await get(server, '/projects', 'vwh_not-a-key-at-all-0000000000'), 401, 'Invalid API key');
  });

  it('answers 401 API key is inactive, then 401 API key has expired', async () => {
    const minted = control.mintKey(server.state, { apiKey: server.demoApiKey, role: 'admin' });
    expect((await get(server, '/projects', minted.api_key)).status).toBe(200);
    control.updateKey(server.state, minted.api_key, { status: 'inactive' });
    expectError(await get(server, '/projects', minted.api_key), 401, 'API key is inactive');
    control.updateKey(server.state, minted.api_key, { status: 'active', expired: true });
    expectError(await get(server, '/projects', minted.api_key), 401, 'API key has expired');
  });

  it('expires a key when the simulated clock passes its expiry (control plane over HTTP)', async () => {
    const minted = (await post(server, '/_reference/keys/mint', { api_key: server.demoApiKey, role: 'admin' })).body;
    const expiresAt = new Date(Date.parse((await get(server, '/_reference/clock')).body.now) + 3_600_000).toISOString();
    await post(server, '/_reference/keys', { api_key: minted.api_key, expires_at: expiresAt });
    expect((await get(server, '/projects', minted.api_key)).status).toBe(200);
    await post(server, '/_reference/clock', { advance_seconds: 7200 });
    expectError(await get(server, '/projects', minted.api_key), 401, 'API key has expired');
  });

  it('answers 404 Project not found and 403 Project does not belong to your team', async () => {
    expectError(await get(server, '/projects/00000000-0000-4000-8000-000000000000'), 404, 'Project not found');
    const account = await post(server, '/account/create', { email: 'other-team@example.com' }, null);
    const key = await post(
      server,
      '/account/api-key',
      { email: 'other-team@example.com', password: account.body.data.password },
      null,
    );
    expectError(
      await get(server, `/projects/${projectId}`, key.body.data.api_key),
      403,
      'Project does not belong to your team',
    );
    expectError(
      await get(server, `/projects/${projectId}/prompts`, key.body.data.api_key),
      403,
      'Project does not belong to your team',
    );
    expect((await get(server, '/projects', key.body.data.api_key)).body.data).toEqual([]);
  });

  it('gives a viewer key reads but 403 on webhook register and delete', async () => {
    const viewer = control.mintKey(server.state, { apiKey: server.demoApiKey, role: 'viewer' }).api_key;
    expect((await get(server, `/projects/${projectId}/prompts`, viewer)).status).toBe(200);
    expect((await get(server, '/webhooks', viewer)).status).toBe(200);
    const body = { url: 'https://hooks.example.com/viewer', events: ['action.completed'] };
    expectError(await post(server, '/webhooks', body, viewer), 403, 'This API key is read-only');
    const created = await post(server, '/webhooks', body);
    expect(created.status).toBe(201);
    expectError(
      await del(server, `/webhooks/${created.body.data.id}`, undefined, viewer),
      403,
      'This API key is read-only',
    );
  });

  it('never mounts the control plane under the public base path', async () => {
    expect((await get(server, '/_reference/clock')).body.now).toMatch(/^2026-03-1\dT/);
    // `/x/...` is sent under the public base path: /api/public/v1/x/_reference/clock.
    const res = await get(server, '/x/_reference/clock');
    expect(res.status).toBe(404);
    expect(res.body.now).toBeUndefined();
  });
});

describe('rate limits on a scaled window and a manual clock', () => {
  let server: ReferenceServer;
  const clock = new ManualClock(Date.UTC(2026, 2, 15, 6));
  beforeAll(async () => {
    server = await start({ clock, rateWindowMs: 2000 });
  });
  afterAll(() => server.close());

  it('allows 70 requests per window on standard, then 429 with Retry-After and the exact detail', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 70; i++) {
      const res = await get(server, '/projects');
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('70');
      expect(res.headers['x-credit-available']).toMatch(/^\d+$/);
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining[0]).toBe(69);
    expect(remaining[69]).toBe(0);
    const refused = await get(server, '/projects');
    expectError(refused, 429, 'Rate limit exceeded. Retry after 2 seconds.');
    expect(refused.headers['retry-after']).toBe('2');

    await clock.advance(1000);
    const still = await get(server, '/projects');
    expect(still.status).toBe(429);
    expect(still.headers['retry-after']).toBe('1');
    await clock.advance(1001);
    expect((await get(server, '/projects')).status).toBe(200);
  });

  it('allows 350 per window on a premium key, each key on its own window', async () => {
    const premium = control.mintKey(server.state, {
      apiKey: server.demoApiKey,
      role: 'admin',
      tier: 'premium',
    }).api_key;
    let ok = 0;
    for (let i = 0; i < 351; i++) if ((await get(server, '/webhooks', premium)).status === 200) ok += 1;
    expect(ok).toBe(350);
    const limited = await get(server, '/webhooks', premium);
    expect(limited.headers['x-ratelimit-limit']).toBe('350');
    expect(limited.status).toBe(429);
  });
});
