/**
 * The control plane (/_reference/…) mints admin keys for any team: it stays on loopback unless the server is told
 * otherwise, and then every call under /_reference/ needs the control token printed at start.
 */
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.js';
import { main } from '../../src/cli/main.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { call, start } from './support.js';

async function status(url: string, method: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await request(url, {
    method: method as 'GET',
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.body.dump();
  return res.statusCode;
}

describe('control plane exposure', () => {
  it('refuses a non-loopback host without --allow-remote-control (usage error, exit 64)', async () => {
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(/--allow-remote-control/);
    expect(await main(['node', 'vwh', 'serve', '--host', '0.0.0.0', '--port', '0'])).toBe(64);
  });

  it('needs no token on loopback', async () => {
    const server = await start();
    try {
      expect(server.controlToken).toBeNull();
      expect((await call(server, 'GET', '/_reference/clock')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('with --allow-remote-control on 0.0.0.0', () => {
  let server: ReferenceServer;
  let text = '';
  const controller = new AbortController();
  beforeAll(async () => {
    const out = new PassThrough();
    out.on('data', (chunk) => {
      text += chunk;
    });
    server = await runServe(
      {
        host: '0.0.0.0',
        port: 0,
        seed: 3,
        today: '2026-01-10',
        demo: true,
        historyDays: 3,
        projects: 1,
        prompts: 2,
        rateWindowMs: 60_000,
        lateFraction: 0.1,
        backgroundDelayMs: 100,
        allowRemoteControl: true,
      },
      out,
      controller.signal,
    );
  });
  afterAll(() => controller.abort());

  it('warns about every interface and prints the control token', () => {
    expect(text).toMatch(/warning: --host 0\.0\.0\.0 listens on every interface/);
    expect(server.controlToken).toMatch(/^\w{32}$/);
    expect(text).toContain(`control token: ${server.controlToken}`);
  });

  it('refuses every /_reference/ route without the token, whichever file registers it', async () => {
    const base = `http://127.0.0.1:${server.port}/_reference`;
    const team = server.state.demo?.teamId;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/clock'],
      ['POST', '/keys/mint', { team_id: team }],
      ['POST', '/reset', {}],
      ['GET', '/services/faults'],
      ['GET', '/truth/visibility'],
      ['GET', '/no-such-call'],
      ['GET', ''],
    ];
    for (const [method, path, body] of calls) {
      expect(await status(base + path, method, {}, body), `${method} ${path}`).toBe(401);
      expect(await status(base + path, method, { 'x-reference-token': 'wrong' }, body), `${method} ${path}`).toBe(401);
    }
    expect(await status(`${base}/clock`, 'GET', { 'x-reference-token': server.controlToken ?? '' })).toBe(200);
    expect(await status(`${base}/clock`, 'GET', { authorization: `Bearer ${server.controlToken}` })).toBe(200);
  });

  it('leaves the API itself as it was', async () => {
    const projects = await status(`http://127.0.0.1:${server.port}/api/public/v1/projects`, 'GET', {
      'x-api-key': server.demoApiKey ?? '',
    });
    expect(projects).toBe(200);
  });
});
