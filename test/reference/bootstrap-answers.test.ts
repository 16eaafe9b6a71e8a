/**
 * Issue 14 item 1: a project bootstrapped through POST /account/projects has its initial answers when the callback
 * says `completed` (the spec: the pipeline fetches "initial responses from all providers" and then calls
 * webhook_url), the same answers on every endpoint that derives from chats, and nothing else changes: other
 * projects' answers and every answer already served stay byte-identical. Real HTTP on port 0; the simulated clock
 * is moved through the control plane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { configureServices } from '../../src/reference/services/registry.js';
import { TODAY } from '../fixtures.js';
import { type Receiver, startReceiver } from './services/receiver.js';
import { expectServed, firstProject, get, type Json, post, start } from './support.js';

const NEXT_DAY = '2026-03-16';
const PROVIDERS = 3;

/** The raw bodies of every chat-derived endpoint of a project for a range (byte comparison). */
async function chatDerived(server: ReferenceServer, key: string, projectId: string, range: string) {
  const prompts = (await get(server, `/projects/${projectId}/prompts`, key)).body.data.prompts as Json[];
  const out: Record<string, string> = {};
  for (const p of prompts) {
    for (const what of ['analytics', 'chats', 'domains', 'urls']) {
      const reply = await get(server, `/projects/${projectId}/prompts/${p.id}/${what}?${range}`, key);
      out[`${p.id}/${what}`] = JSON.stringify(reply.body);
    }
  }
  for (const what of ['sources', 'sources/analytics', 'overview', 'visibility', 'competitors']) {
    out[what] = JSON.stringify((await get(server, `/projects/${projectId}/${what}?${range}`, key)).body);
  }
  return out;
}

describe('bootstrap answers (POST /account/projects)', () => {
  let server: ReferenceServer;
  let hook: Receiver;
  beforeAll(async () => {
    server = await start({ seed: 11, projects: 1, prompts: 4, historyDays: 7 });
    configureServices(server.state, { allowHttpLoopback: true });
    hook = await startReceiver(systemClock);
  });
  afterAll(async () => {
    await server.close();
    await hook.close();
  });

  it('serves the initial answers once the callback says completed, on every chat-derived endpoint', async () => {
    const demo = await firstProject(server);
    const demoKey = server.demoApiKey ?? '';
    const range = `date_from=2026-03-09&date_to=${TODAY}`;
    const demoBefore = await chatDerived(server, demoKey, demo.projectId, range);

    const account = (await post(server, '/account/create', { email: 'boot@example.com' }, null)).body.data;
    const key = (
      await post(server, '/account/api-key', { email: 'boot@example.com', password: account.password }, null)
    ).body.data.api_key as string;
    const body = { brand_name: 'Nimbus Kettles', brand_url: 'https://nimbus-kettles.example', webhook_url: hook.url };
    const projectId = expectServed('createProject', await post(server, '/account/projects', body, key)).project_id;
    await post(server, '/_reference/clock', { advance_seconds: 120 });
    expect(hook.hits).toHaveLength(1);
    const callback = JSON.parse(hook.hits[0]?.raw ?? '{}');
    expect(callback).toMatchObject({ project_id: projectId, status: 'completed' });
    const callbackAt = Date.parse(callback.timestamp);

    const prompts = (await get(server, `/projects/${projectId}/prompts`, key)).body.data.prompts as Json[];
    expect(prompts.length).toBeGreaterThan(0);
    let chats = 0;
    let citations = 0;
    for (const p of prompts) {
      const base = `/projects/${projectId}/prompts/${p.id}`;
      const list = expectServed('getPromptChats', await get(server, `${base}/chats`, key));
      // One answer per provider, dated on the bootstrap day between the prompt's creation and the callback.
      expect(list.items).toHaveLength(PROVIDERS);
      expect(new Set(list.items.map((c: Json) => c.platform)).size).toBe(PROVIDERS);
      for (const chat of list.items) {
        expect(chat.date.slice(0, 10)).toBe(TODAY);
        expect(Date.parse(chat.date)).toBeGreaterThanOrEqual(Math.floor(Date.parse(p.created_at) / 1000) * 1000);
        expect(Date.parse(chat.date)).toBeLessThanOrEqual(callbackAt);
        citations += chat.references.length;
      }
      chats += list.items.length;
      const analytics = expectServed('getPromptAnalytics', await get(server, `${base}/analytics`, key));
      expect(Object.keys(analytics.visibility_chart)).toEqual([TODAY]);
      const domains = expectServed('getPromptDomains', await get(server, `${base}/domains`, key));
      expect(domains.items.length).toBeGreaterThan(0);
      const urls = expectServed('getPromptUrls', await get(server, `${base}/urls`, key));
      expect(urls.items.length).toBeGreaterThan(0);
      // The prompt list's 7-day volume counts the same answers.
      expect(prompts.find((q) => q.id === p.id)?.volume).toBe(PROVIDERS);
    }
    expect(citations).toBeGreaterThan(0);
    const sources = expectServed('listSources', await get(server, `/projects/${projectId}/sources?page_size=50`, key));
    expect(sources.length).toBeGreaterThan(0);
    const top = sources[0].domain as string;
    const sourceChats = expectServed(
      'getSourceChats',
      await get(server, `/projects/${projectId}/sources/${encodeURIComponent(top)}/chats?page_size=50`, key),
    );
    expect(sourceChats.total).toBeGreaterThan(0);
    expect(sourceChats.total).toBeLessThanOrEqual(chats);

    // Nothing else moved: the demo project answers byte for byte what it answered before the bootstrap.
    expect(await chatDerived(server, demoKey, demo.projectId, range)).toEqual(demoBefore);

    // A day later the bootstrap day is unchanged, and the next day is collected like any other.
    const bootRange = `date_from=${TODAY}&date_to=${TODAY}`;
    const served = await chatDerived(server, key, projectId, bootRange);
    await post(server, '/_reference/clock', { advance_days: 1 });
    expect(await chatDerived(server, key, projectId, bootRange)).toEqual(served);
    const p0 = prompts[0].id as string;
    const next = (
      await get(server, `/projects/${projectId}/prompts/${p0}/chats?date_from=${NEXT_DAY}&date_to=${NEXT_DAY}`, key)
    ).body.data.items as Json[];
    expect(next.length).toBeGreaterThan(0);
    expect(next.every((c) => c.date.slice(0, 10) === NEXT_DAY)).toBe(true);
  });
});
