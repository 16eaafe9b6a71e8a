/** Accounts: create, API key (every error row), project create with the background bootstrap and its callback. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootstrapCallback } from '../../src/api/index.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { configureServices } from '../../src/reference/services/registry.js';
import { expectError, expectServed, get, post, start } from './support.js';

interface Receiver {
  url: string;
  bodies: unknown[];
  server: Server;
}

async function receiver(status = 200): Promise<Receiver> {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, server };
}

describe('account endpoints', () => {
  let server: ReferenceServer;
  let hook: Receiver;
  beforeAll(async () => {
    server = await start();
    // The callback receiver is a local http:// server: loopback delivery needs the explicit switch.
    configureServices(server.state, { allowHttpLoopback: true });
    hook = await receiver();
  });
  afterAll(async () => {
    await server.close();
    hook.server.close();
  });

  it('creates an account with a normalized email and a generated password, once', async () => {
    const created = expectServed(
      'createAccount',
      await post(server, '/account/create', { email: '  Ada@Example.COM ', password: 'ignored' }, null),
    );
    expect(created.email).toBe('ada@example.com');
    expect(created.password).not.toBe('ignored');
    expect(created.password.length).toBeGreaterThanOrEqual(16);
    expectError(
      await post(server, '/account/create', { email: 'ada@example.com' }, null),
      409,
      'Failed to create account. The email may already be registered.',
    );
    expectError(await post(server, '/account/create', { email: 'no-at-sign' }, null), 400, 'A valid email is required');
    expectError(await post(server, '/account/create', { email: '' }, null), 400, 'A valid email is required');
    expectError(await post(server, '/account/create', {}, null), 400, 'A valid email is required');
  });

  it('creates a standard API key whose prefix is its first 12 characters', async () => {
    const account = (await post(server, '/account/create', { email: 'key@example.com' }, null)).body.data;
    const key = expectServed(
      'createApiKey',
      await post(server, '/account/api-key', { email: 'KEY@example.com', password: account.password }, null),
    );
    expect(key.key_prefix).toBe(key.api_key.slice(0, 12));
    expect(key.rate_limit_tier).toBe('standard');
    expect(key.team_id).toBe(account.team_id);
    const projects = await get(server, '/projects', key.api_key);
    expect(projects.status).toBe(200);
    expect(projects.headers['x-credit-available']).toBe('10');
    // Only a hash is stored.
    expect(JSON.stringify([...server.state.accounts.keysByHash.values()])).not.toContain(key.api_key);
  });

  it('answers every error row of POST /account/api-key', async () => {
    const account = (await post(server, '/account/create', { email: 'rows@example.com' }, null)).body.data;
    expectError(
      await post(server, '/account/api-key', { email: 'rows@example.com', password: 'wrong' }, null),
      401,
      'Invalid email or password',
    );
    expectError(
      await post(server, '/account/api-key', { email: 'nobody@example.com', password: 'x' }, null),
      401,
      'Invalid email or password',
    );

    const other = (await post(server, '/account/create', { email: 'second-team@example.com' }, null)).body.data;
    control.setMembership(server.state, 'rows@example.com', other.team_id, 'admin');
    expectError(
      await post(server, '/account/api-key', { email: 'rows@example.com', password: account.password }, null),
      400,
      'team_id is required',
    );
    const chosen = await post(
      server,
      '/account/api-key',
      { email: 'rows@example.com', password: account.password, team_id: other.team_id },
      null,
    );
    expect(expectServed('createApiKey', chosen).team_id).toBe(other.team_id);

    control.setMembership(server.state, 'rows@example.com', other.team_id, 'viewer');
    control.setMembership(server.state, 'rows@example.com', account.team_id, 'viewer');
    expectError(
      await post(server, '/account/api-key', { email: 'rows@example.com', password: account.password }, null),
      403,
      'No admin team found for this user',
    );

    control.setAuthOutage(server.state, true);
    expectError(
      await post(server, '/account/api-key', { email: 'rows@example.com', password: account.password }, null),
      500,
      'Authentication service unavailable',
    );
    control.setAuthOutage(server.state, false);
  });

  it('creates a project (202, initializing), runs the bootstrap when the clock passes it, and POSTs the callback', async () => {
    const account = (await post(server, '/account/create', { email: 'brand@example.com' }, null)).body.data;
    const key = (
      await post(server, '/account/api-key', { email: 'brand@example.com', password: account.password }, null)
    ).body.data.api_key;
    const body = {
      brand_name: 'Acme Rockets',
      brand_url: 'https://acme-rockets.example',
      webhook_url: hook.url,
      language: 'en',
      location: 'us',
    };
    const created = expectServed('createProject', await post(server, '/account/projects', body, key));
    expect(created.status).toBe('initializing');
    const before = await get(server, `/projects/${created.project_id}/prompts`, key);
    expect(before.body.data.total).toBe(0);

    await post(server, '/_reference/clock', { advance_seconds: 120 });
    const after = (await get(server, `/projects/${created.project_id}/prompts`, key)).body.data;
    expect(after.total).toBeGreaterThan(0);
    expect(after.total).toBeLessThanOrEqual(3); // skip_trial runs a reduced bootstrap
    const topics = (await get(server, `/projects/${created.project_id}/topics`, key)).body.data.topics;
    expect(topics.length).toBeGreaterThan(0);
    expect(Number((await get(server, '/projects', key)).headers['x-credit-available'])).toBeLessThan(10);

    expect(hook.bodies).toHaveLength(1);
    const callback = BootstrapCallback.parse(hook.bodies[0]);
    expect(callback).toMatchObject({
      event: 'project.bootstrap',
      project_id: created.project_id,
      status: 'completed',
      error: null,
    });
    const project = (await get(server, `/projects/${created.project_id}`, key)).body.data;
    expect(project).toMatchObject({ brand_name: 'Acme Rockets', location: 'US', language: 'en' });
  });

  it('reports status error in the callback when the credits cannot pay for the bootstrap', async () => {
    const account = (await post(server, '/account/create', { email: 'poor@example.com' }, null)).body.data;
    const key = (
      await post(server, '/account/api-key', { email: 'poor@example.com', password: account.password }, null)
    ).body.data.api_key;
    server.state.accounts.spendCredits(server.state.accounts.teams.get(account.team_id)!, server.state.month(), 10);
    const body = { brand_name: 'Broke Inc', brand_url: 'https://broke.example', webhook_url: hook.url };
    const created = (await post(server, '/account/projects', body, key)).body.data;
    await post(server, '/_reference/clock', { advance_seconds: 120 });
    const last = hook.bodies.at(-1) as { project_id: string; status: string; error: string };
    expect(last.project_id).toBe(created.project_id);
    expect(last.status).toBe('error');
    expect(last.error).toMatch(/credits/);
  });

  it('answers the project-create validation rows and the plan project limit', async () => {
    const ok = { brand_name: 'X', brand_url: 'https://x.example', webhook_url: hook.url };
    expectError(await post(server, '/account/projects', { ...ok, brand_name: '  ' }), 400, 'brand_name is required');
    expectError(
      await post(server, '/account/projects', { ...ok, brand_name: undefined }),
      400,
      'brand_name is required',
    );
    expectError(
      await post(server, '/account/projects', { ...ok, brand_url: 'not a url' }),
      400,
      'brand_url must be a valid URL',
    );
    expectError(
      await post(server, '/account/projects', { ...ok, webhook_url: 'ftp://x' }),
      400,
      'webhook_url must be a valid URL',
    );

    const account = (await post(server, '/account/create', { email: 'many@example.com' }, null)).body.data;
    const key = (
      await post(server, '/account/api-key', { email: 'many@example.com', password: account.password }, null)
    ).body.data.api_key;
    for (let i = 0; i < 3; i++) expect((await post(server, '/account/projects', ok, key)).status).toBe(202);
    expectError(
      await post(server, '/account/projects', ok, key),
      403,
      /^You have reached the maximum number of projects/,
    );
  });
});
