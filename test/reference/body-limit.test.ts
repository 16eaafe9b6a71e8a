/** Request bodies are capped (1 MiB) with a 413 before they are read whole, on every service of the server. */
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/reference/http/body-limit.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { call, start } from './support.js';

const big = (bytes: number) => `{"email":"${'a'.repeat(bytes)}@example.com"}`;

describe('bounded request bodies', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('answers 413 to a declared body over the cap, on the public API and the services', async () => {
    for (const path of ['/account/create', '/api/v1/tasks', '/api/v2/create_team', '/_reference/clock']) {
      const reply = await call(server, 'POST', path, { rawBody: big(MAX_BODY_BYTES + 10) });
      expect(reply.status, path).toBe(413);
      expect(reply.body.detail).toMatch(/too large/);
    }
  });

  it('answers 413 to a chunked body as soon as it passes the cap, without waiting for its end', async () => {
    // 64 MiB announced by nothing: the stream would take long to send whole; the answer must come first.
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const body = new Readable({
      read() {
        sent += chunk.length;
        this.push(sent > 64 * 1024 * 1024 ? null : chunk);
      },
    });
    const res = await request(`${server.baseUrl}/account/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }).catch((error: unknown) => error);
    if (res instanceof Error) throw res;
    expect((res as { statusCode: number }).statusCode).toBe(413);
    await (res as { body: { dump(): Promise<void> } }).body.dump();
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it('still reads a body under the cap', async () => {
    const reply = await call(server, 'POST', '/account/create', { body: { email: 'under-cap@example.com' } });
    expect(reply.status).toBeLessThan(300);
  });
});

describe('a large body refused', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('lets the client read its 413 every time: the connection closes after the answer and the body', async () => {
    // 5 MB uploaded as a client streams a file: still being written when the 413 comes, as on a loaded host.
    const size = 5 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 'a');
    async function* upload() {
      for (let sent = 0; sent < size; sent += chunk.length) {
        yield chunk;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await request(`${server.baseUrl}/account/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(size) },
        body: Readable.from(upload()),
      }).catch((error: Error) => error);
      if (res instanceof Error) {
        outcomes.push(res.message);
        continue;
      }
      outcomes.push(String(res.statusCode));
      await res.body.dump();
    }
    expect(outcomes).toEqual(Array(20).fill('413'));
  });
});
