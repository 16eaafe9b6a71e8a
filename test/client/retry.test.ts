import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { RateBudget } from '../../src/client/rate-budget.js';
import type { WaitEvent } from '../../src/client/wait-events.js';
import { ManualClock, systemClock } from '../../src/core/clock.js';
import type { VwhError } from '../../src/core/errors.js';
import { drive } from './support/drive.js';
import { KEY, listThings, PROJECT } from './support/endpoints.js';
import { type Handler, json, startServer, type TestServer, until } from './support/server.js';

let server: TestServer | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const ok = { success: true, data: [{ id: 'a', n: 1 }] };
const params = { path: { project_id: PROJECT } };

async function setup(handler: Handler, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  server = await startServer(handler);
  const clock = new ManualClock(0);
  client = new ApiClient({
    baseUrl: server.url,
    apiKey: KEY,
    clock,
    budget: new RateBudget({ clock }),
    retries: 3,
    timeoutMs: 2_000,
    random: () => 0.5,
    ...extra,
  });
  return { server, client, clock };
}

/** Fails the first `n` attempts with `fail`, then answers `ok`. */
function failing(n: number, fail: Handler): Handler {
  return (req, res, hit, index) => (index < n ? fail(req, res, hit, index) : json(res, 200, ok));
}

describe('ApiClient: retries', () => {
  it('honours Retry-After in full before the retry goes out (ManualClock)', async () => {
    const { server, client, clock } = await setup(
      failing(1, (_req, res) =>
        json(res, 429, { detail: 'Rate limit exceeded. Retry after 2 seconds.' }, { 'retry-after': '2' }),
      ),
    );
    const waits: WaitEvent[] = [];
    client.onWait((e) => waits.push(e));
    const call = client.call(listThings, params);
    await until(() => clock.pendingSleepers > 0);
    expect(server.hits).toHaveLength(1);
    await clock.advance(1_999);
    await new Promise((r) => setTimeout(r, 30));
    expect(server.hits).toHaveLength(1);
    await clock.advance(1);
    const result = await call;
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
    expect(waits).toContainEqual({ reason: 'retry-after', ms: 2_000, until: 2_000 });
    expect(client.stats()).toMatchObject({ rateLimited: 1, requests: 2, succeeded: 1, budgetWaitMs: 2_000 });
  });

  it('a 429 Retry-After holds back the other calls too', async () => {
    const { server, client, clock } = await setup((_req, res, _hit, index) =>
      index === 0
        ? json(res, 429, { detail: 'Rate limit exceeded. Retry after 5 seconds.' }, { 'retry-after': '5' })
        : json(res, 200, ok),
    );
    const first = client.call(listThings, params);
    await until(() => clock.pendingSleepers > 0);
    const second = client.call(listThings, params);
    await new Promise((r) => setTimeout(r, 30));
    expect(server.hits).toHaveLength(1);
    await clock.advance(5_000);
    await Promise.all([first, second]);
    expect(server.hits).toHaveLength(3);
  });

  it('retries 5xx after a backoff slept on the injected clock, then succeeds', async () => {
    const { server, client, clock } = await setup(
      failing(2, (_req, res) => json(res, 503, { detail: 'busy' })),
      {
        backoff: { minMs: 1_000, factor: 2 },
      },
    );
    const waits: WaitEvent[] = [];
    client.onWait((e) => waits.push(e));
    const call = client.call(listThings, params);
    await until(() => clock.pendingSleepers > 0);
    expect(server.hits).toHaveLength(1);
    // random() = 0.5 → delay = d/2 + d/4: 750 ms, then 1 500 ms.
    await clock.advance(749);
    await new Promise((r) => setTimeout(r, 30));
    expect(server.hits).toHaveLength(1);
    const result = await drive(clock, call, 1);
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(3);
    expect(waits.filter((w) => w.reason === 'backoff').map((w) => w.ms)).toEqual([750, 1_500]);
    expect(client.stats()).toMatchObject({ retries: 2, backoffMs: 2_250 });
  });

  it('a 503 with Retry-After waits at least that long before the retry', async () => {
    const { server, client, clock } = await setup(
      failing(1, (_req, res) => json(res, 503, { detail: 'maintenance' }, { 'retry-after': '20' })),
    );
    const waits: WaitEvent[] = [];
    client.onWait((e) => waits.push(e));
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
    expect(waits).toEqual([{ reason: 'backoff', ms: 20_000, until: 20_000 }]);
  });

  it('retries a connection reset', async () => {
    const { server, client, clock } = await setup(failing(1, (req) => void req.socket.destroy()));
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
  });

  it('retries a body cut short (fewer bytes than Content-Length)', async () => {
    const { server, client, clock } = await setup(
      failing(1, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"success":true,"da');
        setTimeout(() => res.socket?.destroy(), 5);
      }),
    );
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
  });

  it('retries an unparsable body', async () => {
    const { server, client, clock } = await setup(
      failing(2, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"success":true,"data":[{"id":');
      }),
    );
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(3);
  });

  it('retries a request that gets no answer within the timeout', async () => {
    const { server, client, clock } = await setup(
      failing(1, () => {
        // never answers; the client's deadline fires
      }),
      { timeoutMs: 150 },
    );
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
  });

  it('after the retries: HTTP_SERVER_ERROR with the status and the detail', async () => {
    const { server, client, clock } = await setup((_req, res) =>
      json(res, 500, { detail: 'Authentication service unavailable' }),
    );
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('HTTP_SERVER_ERROR');
    expect(error.message).toContain('500');
    expect(error.message).toContain('Authentication service unavailable');
    expect(error.details).toMatchObject({ attempts: 4 });
    expect(server.hits).toHaveLength(4);
  });

  it('after the retries: HTTP_TRANSPORT for a server that keeps dropping the connection', async () => {
    const { server, client, clock } = await setup((req) => void req.socket.destroy(), { retries: 2 });
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('HTTP_TRANSPORT');
    expect(error.message).toMatch(/3 attempts/);
    expect(server.hits).toHaveLength(3);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it('fails with BUDGET_EXHAUSTED when 429s keep coming although Retry-After was honoured', async () => {
    const { server, client, clock } = await setup(
      (_req, res) => json(res, 429, { detail: 'Rate limit exceeded. Retry after 1 seconds.' }, { 'retry-after': '1' }),
      { max429: 3 },
    );
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('BUDGET_EXHAUSTED');
    expect(server.hits).toHaveLength(4);
    // Every retry waited for its Retry-After: 3 seconds of clock time went by.
    expect(clock.now()).toBeGreaterThanOrEqual(3_000);
  });

  it('stops retrying when the caller aborts', async () => {
    const { server, client, clock } = await setup((_req, res) => json(res, 503, { detail: 'busy' }));
    const controller = new AbortController();
    const call = client.call(listThings, { ...params, signal: controller.signal });
    await until(() => clock.pendingSleepers > 0);
    controller.abort(new Error('user stop'));
    await expect(call).rejects.toThrow('user stop');
    expect(server.hits).toHaveLength(1);
  });
});

const rateLimited =
  (retryAfter: string): Handler =>
  (_req, res) =>
    json(res, 429, { detail: 'Rate limit exceeded.' }, { 'retry-after': retryAfter });

describe('ApiClient: Retry-After has a ceiling', () => {
  it.each([
    ['3600', /Retry-After: 3600 \(1 h\), longer than the 300 s this sync waits/],
    ['99999999999', /Retry-After: 99999999999 \(3171 years\)/],
  ])('a 429 asking for %s s fails at once, naming the value and the setting', async (value, message) => {
    const { server, client, clock } = await setup(rateLimited(value));
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('RETRY_AFTER_TOO_LONG');
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/maxRetryAfterSeconds.*--max-retry-after/);
    expect(server.hits).toHaveLength(1);
    expect(clock.now()).toBe(0);
    // The budget is not held for the hour either: other calls go on at once.
    expect(client.budget.blockedUntilTime).toBe(0);
  });

  it('a 503 asking for more than the ceiling is not retried after it', async () => {
    const { server, client, clock } = await setup((_req, res) =>
      json(res, 503, { detail: 'maintenance' }, { 'retry-after': '7200' }),
    );
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('RETRY_AFTER_TOO_LONG');
    expect(error.message).toContain('Retry-After: 7200');
    expect(server.hits).toHaveLength(1);
  });

  it('a Retry-After within the ceiling is still honoured in full', async () => {
    const { server, client, clock } = await setup(
      (req, res, hit, index) => (index === 0 ? rateLimited('20')(req, res, hit, index) : json(res, 200, ok)),
      { maxRetryAfterMs: 20_000 },
    );
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
    expect(clock.now()).toBeGreaterThanOrEqual(20_000);
  });

  it('a lower ceiling (maxRetryAfterMs) fails what the default would wait for', async () => {
    const { server, client, clock } = await setup(rateLimited('20'), { maxRetryAfterMs: 10_000 });
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.message).toMatch(/Retry-After: 20 \(20 s\), longer than the 10 s/);
    expect(server.hits).toHaveLength(1);
  });
});

describe('timers stay within what setTimeout accepts', () => {
  it('the system clock sleeps on a huge delay without a TimeoutOverflowWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const sleeping = systemClock.sleep(99_999_999_999_000, controller.signal);
      await new Promise((r) => setTimeout(r, 20));
      controller.abort(new Error('stop'));
      await expect(sleeping).rejects.toThrow('stop');
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});

describe('ApiClient: a complete body that is not JSON', () => {
  it('an HTML page with 200 fails at once, saying it was HTML, its content type and first bytes', async () => {
    const { server, client, clock } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html>\n<html><head><title>Sign in to the proxy</title></head><body>…</body></html>');
    });
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('HTTP_NOT_JSON');
    expect(error.message).toContain('answered 200 with Content-Type text/html; charset=utf-8 and an HTML page');
    expect(error.message).toContain('it begins "<!DOCTYPE html> <html><head><title>Sign in to the proxy');
    expect(error.message).not.toMatch(/truncated/);
    expect(server.hits).toHaveLength(1);
  });

  it('plain text under a JSON content type is not retried either', async () => {
    const { server, client, clock } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('OK');
    });
    const error = (await drive(clock, client.call(listThings, params)).catch((e: unknown) => e)) as VwhError;
    expect(error.code).toBe('HTTP_NOT_JSON');
    expect(error.message).toContain('a body that is not JSON (it begins "OK")');
    expect(server.hits).toHaveLength(1);
  });

  it('JSON cut short is still retried', async () => {
    const { server, client, clock } = await setup((_req, res, _hit, index) => {
      if (index > 0) return json(res, 200, ok);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true,"data":[{"id":');
    });
    const result = await drive(clock, client.call(listThings, params));
    expect(result.ok).toBe(true);
    expect(server.hits).toHaveLength(2);
  });
});
