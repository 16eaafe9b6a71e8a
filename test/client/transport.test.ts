import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/client/transport.js';
import { UndiciTransport } from '../../src/client/undici-transport.js';
import { json, startServer, type TestServer } from './support/server.js';

let server: TestServer | undefined;
const transport = new UndiciTransport({ connections: 2 });
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(promise: Promise<unknown>): Promise<TransportError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TransportError);
  return error as TransportError;
}

describe('UndiciTransport', () => {
  it('keeps connections alive: 20 sequential requests reuse the pooled sockets', async () => {
    server = await startServer((_req, res) => json(res, 200, { ok: true }));
    for (let i = 0; i < 20; i++) {
      const res = await transport.request({ method: 'GET', url: `${server.url}/x?i=${i}`, headers: {} });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(JSON.parse(res.text)).toEqual({ ok: true });
    }
    // Not 20: at most the pool's two connections.
    expect(server.sockets).toBeLessThanOrEqual(2);
  });

  it('caps connections per origin', async () => {
    server = await startServer((_req, res) => {
      setTimeout(() => json(res, 200, {}), 20);
    });
    await Promise.all(
      Array.from({ length: 8 }, () => transport.request({ method: 'GET', url: `${server?.url}/`, headers: {} })),
    );
    expect(server.sockets).toBeLessThanOrEqual(2);
  });

  it('maps a reset to kind "reset" (retryable)', async () => {
    server = await startServer((req) => void req.socket.destroy());
    const error = await failure(transport.request({ method: 'GET', url: `${server.url}/`, headers: {} }));
    expect(error.kind).toBe('reset');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('GET /');
  });

  it('maps a refused connection to kind "connect"', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const error = await failure(transport.request({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {} }));
    expect(error.kind).toBe('connect');
  });

  it('maps a deadline to kind "timeout", also for a body that trickles', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    });
    const error = await failure(
      transport.request({ method: 'GET', url: `${server.url}/`, headers: {}, timeoutMs: 150 }),
    );
    expect(error.kind).toBe('timeout');
  });

  it('maps a body shorter than its Content-Length to a retryable kind', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
      setTimeout(() => res.socket?.destroy(), 5);
    });
    const error = await failure(transport.request({ method: 'GET', url: `${server.url}/`, headers: {} }));
    expect(['reset', 'truncated']).toContain(error.kind);
    expect(error.retryable).toBe(true);
  });

  it('reports the caller abort as kind "aborted" (not retryable)', async () => {
    server = await startServer(() => {});
    const controller = new AbortController();
    const pending = transport.request({ method: 'GET', url: `${server.url}/`, headers: {}, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(error.retryable).toBe(false);
  });
});
