/**
 * The budget against a server that enforces a scaled sliding window (10 per 400 ms) on the real clock. Assertions
 * are counts seen by the server, never durations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { MemoryBudgetStore } from '../../src/client/budget-store.js';
import { RateBudget } from '../../src/client/rate-budget.js';
import { KEY, listThings, PROJECT } from './support/endpoints.js';
import { json, maxInWindow, startServer, type TestServer } from './support/server.js';
import { SlidingWindow } from './support/sliding-window.js';

const LIMIT = 10;
const WINDOW = 400;
const params = { path: { project_id: PROJECT } };

let server: TestServer | undefined;
const clients: ApiClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = undefined;
});

async function limitedServer(foreign = 0) {
  const window = new SlidingWindow(LIMIT, WINDOW, foreign);
  const admitted: number[] = [];
  server = await startServer((_req, res, hit) => {
    const verdict = window.admit(hit.at);
    if (!verdict.ok) {
      const seconds = (verdict.retryAfterMs / 1000).toFixed(3);
      json(res, 429, { detail: `Rate limit exceeded. Retry after ${seconds} seconds.` }, { 'retry-after': seconds });
      return;
    }
    admitted.push(hit.at);
    json(
      res,
      200,
      { success: true, data: [] },
      {
        'x-ratelimit-limit': String(LIMIT),
        'x-ratelimit-remaining': String(verdict.remaining),
      },
    );
  });
  return { server, window, admitted };
}

function newClient(url: string, budget: RateBudget, concurrency = 4) {
  const client = new ApiClient({ baseUrl: url, apiKey: KEY, budget, concurrency });
  clients.push(client);
  return client;
}

describe('RateBudget against a sliding-window server (real clock, scaled window)', () => {
  it('never lets more than the limit into any window: zero 429s', async () => {
    const { server, window, admitted } = await limitedServer();
    const client = newClient(server.url, new RateBudget({ limit: LIMIT, windowMs: WINDOW }), LIMIT);
    const results = await Promise.all(Array.from({ length: 35 }, () => client.call(listThings, params)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(window.rejected).toBe(0);
    expect(admitted).toHaveLength(35);
    expect(maxInWindow(admitted, WINDOW)).toBeLessThanOrEqual(LIMIT);
    // It uses what the window allows: with as many connections as slots, the first window fills at once.
    expect(maxInWindow(admitted, WINDOW)).toBe(LIMIT);
  });

  it('slows down when X-RateLimit-Remaining says someone else uses the key', async () => {
    // Another user keeps 6 of the 10 slots: 4 are ours.
    const { server, window, admitted } = await limitedServer(6);
    const client = newClient(server.url, new RateBudget({ limit: LIMIT, windowMs: WINDOW }), 1);
    await Promise.all(Array.from({ length: 14 }, () => client.call(listThings, params)));
    expect(window.rejected).toBe(0);
    expect(maxInWindow(admitted, WINDOW)).toBeLessThanOrEqual(4);
    expect(client.stats().phantoms).toBeGreaterThanOrEqual(6);
  });

  it('leaves the rest of the window to others with a budget share', async () => {
    const { server, window, admitted } = await limitedServer();
    const client = newClient(server.url, new RateBudget({ limit: LIMIT, windowMs: WINDOW, share: 0.5 }));
    await Promise.all(Array.from({ length: 12 }, () => client.call(listThings, params)));
    expect(window.rejected).toBe(0);
    expect(maxInWindow(admitted, WINDOW)).toBeLessThanOrEqual(5);
  });

  it('a restarted client that loads the saved window does not burst', async () => {
    const { server, window, admitted } = await limitedServer();
    const store = new MemoryBudgetStore();
    const opts = { limit: LIMIT, windowMs: WINDOW, store, keyId: 'test-key' };
    const first = newClient(server.url, await RateBudget.load(opts));
    await Promise.all(Array.from({ length: LIMIT }, () => first.call(listThings, params)));
    await first.close();
    const second = newClient(server.url, await RateBudget.load(opts));
    await Promise.all(Array.from({ length: 5 }, () => second.call(listThings, params)));
    expect(window.rejected).toBe(0);
    expect(maxInWindow(admitted, WINDOW)).toBeLessThanOrEqual(LIMIT);
  });

  it('without the saved window a restart would burst into 429s (the server really enforces)', async () => {
    const { server, window } = await limitedServer();
    const first = newClient(server.url, new RateBudget({ limit: LIMIT, windowMs: WINDOW }));
    await Promise.all(Array.from({ length: LIMIT }, () => first.call(listThings, params)));
    const second = newClient(server.url, new RateBudget({ limit: LIMIT, windowMs: WINDOW }));
    const results = await Promise.all(Array.from({ length: 3 }, () => second.call(listThings, params)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(window.rejected).toBeGreaterThan(0);
    expect(second.stats().rateLimited).toBeGreaterThan(0);
  });
});
