import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { RateBudget } from '../../src/client/rate-budget.js';
import type { WaitEvent } from '../../src/client/wait-events.js';
import { ManualClock } from '../../src/core/clock.js';
import { ExitCode, type VwhError } from '../../src/core/errors.js';
import { createLogger } from '../../src/core/log.js';
import { createThing, KEY, listThings, openThing, PROJECT } from './support/endpoints.js';
import { json, startServer, type TestServer, until } from './support/server.js';

let server: TestServer | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function makeClient(url: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  const clock = new ManualClock(0);
  client = new ApiClient({ baseUrl: url, apiKey: KEY, clock, budget: new RateBudget({ clock }), ...extra });
  return client;
}

async function caught(promise: Promise<unknown>): Promise<VwhError> {
  try {
    await promise;
  } catch (error) {
    return error as VwhError;
  }
  throw new Error('expected a rejection');
}

describe('ApiClient: envelopes and schemas', () => {
  it('decodes envelope A, sends the key header and fills the path', async () => {
    server = await startServer((_req, res) => json(res, 200, { success: true, data: [{ id: 'a', n: 1, extra: 'x' }] }));
    const result = await makeClient(server.url).call(listThings, { path: { project_id: PROJECT } });
    expect(result.ok).toBe(true);
    expect(result.data).toEqual([{ id: 'a', n: 1, extra: 'x' }]);
    expect(server.hits[0]?.url).toBe(`/api/public/v1/projects/${PROJECT}/things`);
    expect(server.hits[0]?.headers['x-api-key']).toBe(KEY);
  });

  it('reports a missing path parameter as an INTERNAL error, without a request', async () => {
    server = await startServer((_req, res) => json(res, 200, { success: true, data: [] }));
    await expect(makeClient(server.url).call(listThings, { path: {} as never })).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    expect(server.hits).toHaveLength(0);
  });

  it('keeps the latest X-Credit-Available', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, { success: true, data: [] }, { 'x-credit-available': '7' }),
    );
    const c = makeClient(server.url);
    expect(c.stats().creditsAvailable).toBeUndefined();
    await c.call(listThings, { path: { project_id: PROJECT } });
    expect(c.stats().creditsAvailable).toBe(7);
  });

  it('decodes envelope B and sends a JSON body', async () => {
    server = await startServer((_req, res) =>
      json(res, 201, { code: 201, message: '201 Created', data: { projectId: PROJECT, created: 2 } }),
    );
    const result = await makeClient(server.url).call(createThing, {
      path: { project_id: PROJECT },
      body: { name: 'x' },
    });
    expect(result).toMatchObject({ ok: true, status: 201, data: { projectId: PROJECT, created: 2 } });
    expect(server.hits[0]?.method).toBe('POST');
    expect(JSON.parse(server.hits[0]?.body ?? '')).toEqual({ name: 'x' });
    expect(server.hits[0]?.headers['content-type']).toBe('application/json');
  });

  it('does not send the key to endpoints that need none', async () => {
    server = await startServer((_req, res) => json(res, 200, { code: 200, message: '200 OK', data: { user_id: 'u' } }));
    const result = await makeClient(server.url).call(openThing, { body: { email: 'a@b.c' } });
    expect(result.ok).toBe(true);
    expect(server.hits[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('returns schema drift as issues with the raw data, without throwing', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, {
        success: true,
        data: [
          { id: 'a', n: 1 },
          { id: 2, n: 'two' },
        ],
      }),
    );
    const result = await makeClient(server.url).call(listThings, { path: { project_id: PROJECT } });
    expect(result.ok).toBe(false);
    expect(result.data).toBeUndefined();
    expect(result.raw).toEqual([
      { id: 'a', n: 1 },
      { id: 2, n: 'two' },
    ]);
    expect(result.issues.map((i) => i.path.join('.'))).toEqual(['1.id', '1.n']);
  });

  it('reports a body that does not fit its envelope as an issue', async () => {
    server = await startServer((req, res) =>
      req.url?.includes('things') && req.method === 'GET'
        ? json(res, 200, { success: false, data: [] })
        : json(res, 201, { success: true, data: { projectId: PROJECT, created: 1 } }),
    );
    const c = makeClient(server.url);
    const a = await c.call(listThings, { path: { project_id: PROJECT } });
    expect(a.ok).toBe(false);
    expect(a.issues[0]?.message).toMatch(/envelope A/);
    const b = await c.call(createThing, { path: { project_id: PROJECT }, body: { name: 'x' } });
    expect(b.ok).toBe(false);
    expect(b.issues[0]?.message).toMatch(/envelope B/);
  });

  it('looks catalogue endpoints up by id', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, { success: true, data: { project_id: PROJECT, total: 0, prompts: [] } }),
    );
    const result = await makeClient(server.url).call('listPrompts', { path: { project_id: PROJECT } });
    expect(result.ok).toBe(true);
    expect(result.data?.total).toBe(0);
    expect(server.hits[0]?.url).toBe(`/api/public/v1/projects/${PROJECT}/prompts`);
  });

  it('looks endpoints up by id in a given table', async () => {
    server = await startServer((_req, res) => json(res, 200, { success: true, data: [] }));
    const c = makeClient(server.url, { endpoints: { listThings } });
    const result = await c.call('listThings', { path: { project_id: PROJECT } });
    expect(result.ok).toBe(true);
    await expect(c.call('nope')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('request() reaches paths outside the catalogue, on another service base URL', async () => {
    const other = await startServer((_req, res) => json(res, 200, { task_id: 't' }));
    try {
      server = await startServer((_req, res) => json(res, 500, {}));
      const c = makeClient(server.url, { serviceBaseUrls: { content: `${other.url}/` } });
      const res = await c.request({ method: 'GET', path: '/api/v1/tasks', query: { limit: 5 }, service: 'content' });
      expect(res.body).toEqual({ task_id: 't' });
      expect(other.hits[0]?.url).toBe('/api/v1/tasks?limit=5');
      expect(server.hits).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe('ApiClient: budget', () => {
  it('every request waits for the budget, and the wait is announced', async () => {
    server = await startServer((_req, res) => json(res, 200, { success: true, data: [] }));
    const clock = new ManualClock(0);
    const c = makeClient(server.url, { clock, budget: new RateBudget({ limit: 1, windowMs: 60_000, clock }) });
    const waits: WaitEvent[] = [];
    c.onWait((w) => waits.push(w));
    await c.call(listThings, { path: { project_id: PROJECT } });
    const second = c.call(listThings, { path: { project_id: PROJECT } });
    await until(() => waits.length > 0);
    expect(waits[0]).toMatchObject({ reason: 'budget' });
    expect(waits[0]?.ms).toBeGreaterThan(59_000);
    await new Promise((r) => setTimeout(r, 30));
    expect(server.hits).toHaveLength(1);
    await clock.advance(61_000);
    expect((await second).ok).toBe(true);
    expect(server.hits).toHaveLength(2);
    expect(c.stats()).toMatchObject({ requests: 2, succeeded: 2 });
  });
});

describe('ApiClient: errors', () => {
  it.each([
    [404, { detail: 'Project not found' }, 'Project not found'],
    [403, { detail: 'Project does not belong to your team' }, 'Project does not belong to your team'],
    [400, { detail: "prompt_type must be 'active' or 'suggested'" }, "prompt_type must be 'active' or 'suggested'"],
    [409, { detail: 'Alias exists', code: 'ALIAS_DUPLICATE' }, 'Alias exists'],
    [429, { detail: 'Prompt quota exceeded for your plan' }, 'Prompt quota exceeded'],
    [400, { error: { code: 'VALIDATION_ERROR', message: 'user_prompt is required' } }, 'user_prompt is required'],
  ])('does not retry %i and quotes the API detail', async (status, body, expected) => {
    server = await startServer((_req, res) => json(res, status, body));
    const error = await caught(makeClient(server.url).call(listThings, { path: { project_id: PROJECT } }));
    expect(error.code).toBe('HTTP_CLIENT_ERROR');
    expect(error.message).toContain(expected);
    expect(error.message).toContain(`GET /api/public/v1/projects/${PROJECT}/things`);
    expect(error.details).toMatchObject({ status, method: 'GET' });
    expect(server.hits).toHaveLength(1);
  });

  it.each([
    ['Missing X-API-Key header', 'AUTH_MISSING_KEY'],
    ['Invalid API key', 'AUTH_INVALID_KEY'],
    ['API key is inactive', 'AUTH_INACTIVE_KEY'],
    ['API key has expired', 'AUTH_EXPIRED_KEY'],
    ['Something new', 'AUTH_INVALID_KEY'],
    [`Invalid API key ${KEY}`, 'AUTH_INVALID_KEY'],
  ])('401 "%s" becomes %s, exit code 3, and the key appears nowhere', async (detail, code) => {
    server = await startServer((_req, res) => json(res, 401, { detail }));
    const lines: string[] = [];
    const logger = createLogger({
      format: 'json',
      level: 'debug',
      stream: { write: (line: string) => lines.push(line) } as unknown as NodeJS.WritableStream,
    });
    const c = makeClient(server.url, { logger });
    const error = await caught(c.call(listThings, { path: { project_id: PROJECT } }));
    expect(error.code).toBe(code);
    expect(error.exitCode).toBe(ExitCode.auth);
    expect(error.message).toContain(detail.replace(KEY, ''));
    for (const text of [
      error.message,
      String(error),
      JSON.stringify(error),
      JSON.stringify(error.details),
      error.stack,
    ]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(12));
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(KEY.slice(12));
    // The key is refused: the client stops at once, later calls do not reach the server.
    await expect(c.call(listThings, { path: { project_id: PROJECT } })).rejects.toBe(error);
    expect(server.hits).toHaveLength(1);
  });

  it('a 401 on an endpoint that needs no key is a plain client error', async () => {
    server = await startServer((_req, res) => json(res, 401, { detail: 'Invalid email or password' }));
    const c = makeClient(server.url);
    const error = await caught(c.call(openThing, { body: { email: 'a@b.c' } }));
    expect(error.code).toBe('HTTP_CLIENT_ERROR');
    expect(error.exitCode).not.toBe(ExitCode.auth);
    expect(error.message).toContain('Invalid email or password');
  });

  it('without a key, the API answer becomes AUTH_MISSING_KEY', async () => {
    server = await startServer((req, res) =>
      req.headers['x-api-key']
        ? json(res, 200, { success: true, data: [] })
        : json(res, 401, { detail: 'Missing X-API-Key header' }),
    );
    const error = await caught(
      makeClient(server.url, { apiKey: undefined }).call(listThings, { path: { project_id: PROJECT } }),
    );
    expect(error.code).toBe('AUTH_MISSING_KEY');
    expect(error.exitCode).toBe(3);
  });
});
