/** `vwh serve` (flags, ready lines, key file), the control plane (clock, reset), OpenAPI, and route coverage. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints, fullPath } from '../../src/api/index.js';
import { runServe } from '../../src/cli/commands/serve.js';
import { main } from '../../src/cli/main.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { tempDir } from '../fixtures.js';
import { call, firstProject, get, post, start } from './support.js';

describe('vwh serve', () => {
  it('prints the listening line and the demo key, writes --key-file, and stops on abort', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk) => {
      text += chunk;
    });
    const keyFile = join(tempDir('vwh-serve-').dir, 'demo.key');
    const controller = new AbortController();
    const server = await runServe(
      {
        host: '127.0.0.1',
        port: 0,
        seed: 3,
        today: '2026-01-10',
        demo: true,
        historyDays: 5,
        projects: 1,
        prompts: 3,
        rateWindowMs: 60_000,
        lateFraction: 0.1,
        backgroundDelayMs: 100,
        keyFile,
      },
      out,
      controller.signal,
    );
    expect(text).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n/);
    const key = /demo api key: (\S+)/.exec(text)?.[1];
    expect(key).toBe(server.demoApiKey);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);
    expect((await get(server, '/projects')).body.data).toHaveLength(1);
    expect((await get(server, '/_reference/clock')).body.today).toBe('2026-01-10');
    controller.abort();
    await new Promise((r) => setTimeout(r, 50));
    await expect(get(server, '/projects')).rejects.toThrow();
  });

  it('refuses an invalid --faults spec and a bad --today with the usage exit code', async () => {
    expect(await main(['node', 'vwh', 'serve', '--port', '0', '--faults', 'boom=2'])).toBe(64);
    expect(await main(['node', 'vwh', 'serve', '--port', '0', '--today', '2026-13-45'])).toBe(64);
  });
});

describe('control plane and coverage', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('moves the simulated clock by days and seconds', async () => {
    const before = Date.parse((await get(server, '/_reference/clock')).body.now);
    const after = (await post(server, '/_reference/clock', { advance_days: 2, advance_seconds: 30 })).body.now;
    expect(Date.parse(after) - before).toBeGreaterThanOrEqual(2 * 86_400_000 + 30_000);
    expect(Date.parse(after) - before).toBeLessThan(2 * 86_400_000 + 40_000);
    expect((await post(server, '/_reference/clock', {})).status).toBe(400);
    expect((await post(server, '/_reference/clock', { advance_days: -1 })).status).toBe(400);
  });

  it('resets state, keeping the demo key', async () => {
    const { projectId } = await firstProject(server);
    await post(server, `/projects/${projectId}/aliases`, { alias: 'Reset Me' });
    await post(server, '/account/create', { email: 'reset@example.com' }, null);
    expect((await post(server, '/_reference/reset')).body.reset).toBe(true);
    const aliases = (await get(server, `/projects/${projectId}/aliases`)).body.data.aliases;
    expect(aliases.map((a: { name: string }) => a.name)).not.toContain('Reset Me');
    expect((await post(server, '/account/create', { email: 'reset@example.com' }, null)).status).toBe(200);
  });

  it('serves the OpenAPI document without a key', async () => {
    const doc = (await get(server, '/openapi.json', null)).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/public/v1/projects/{project_id}/prompts/{prompt_id}/chats');
  });

  it('routes every endpoint of the catalogue, all services', async () => {
    const { projectId, promptId } = await firstProject(server);
    const params = {
      project_id: projectId,
      prompt_id: promptId,
      competitor_id: '00000000-0000-4000-8000-0000000000c1',
      action_id: '00000000-0000-4000-8000-0000000000a1',
      webhook_id: 'wh_unknown',
      domain: 'reddit.com',
      task_id: '00000000-0000-4000-8000-0000000000b1',
      article_id: '00000000-0000-4000-8000-0000000000b2',
      team_id: '00000000-0000-4000-8000-0000000000b3',
      email: 'someone@example.com',
    };
    const unrouted: string[] = [];
    const all = allEndpoints();
    expect(all.length).toBeGreaterThan(50);
    for (const def of all) {
      const path = fullPath(def, params).replace(server.baseUrl.slice(server.url.length), '');
      const res = await call(server, def.method, path, { body: def.body ? {} : undefined });
      if (res.status === 404 && res.body?.detail === 'Not Found') unrouted.push(`${def.method} ${def.path}`);
      expect(res.status, `${def.method} ${def.path}`).toBeLessThan(500);
    }
    expect(unrouted).toEqual([]);
  });
});
