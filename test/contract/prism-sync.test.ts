/**
 * A full `vwh sync` through Stoplight Prism's validating proxy (`prism proxy --errors`, tools.ts) in front of the
 * reference server on loopback: every request the client sends and every answer the server gives, the content and
 * team services included, must satisfy the OpenAPI document. A small world (1 project × 3 prompts × 7 days) on the
 * scaled rate window keeps it to seconds. The error paths run through Prism in prism-conformance.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { control, type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { DEMO_EMAIL } from '../../src/reference/state/demo-team.js';
import { TODAY } from '../fixtures.js';
import { openWarehouse, query, tempDir, WINDOW_MS } from '../sync/support.js';
import { type Prism, startPrism, writeDocument } from './tools.js';

let server: ReferenceServer;
let prism: Prism;
let tmp: ReturnType<typeof tempDir>;
const saved = { ...process.env };

/** A call of the second document's services through Prism; its answer must be Prism's forward of a success. */
async function service<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(prism.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok || res.headers.get('sl-violations')) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  server = await startReferenceServer({
    port: 0,
    seed: 23,
    today: TODAY,
    demo: true,
    projects: 1,
    prompts: 3,
    historyDays: 7,
    rateWindowMs: WINDOW_MS,
  });
  tmp = tempDir();
  const { path } = writeDocument({ serverUrl: server.url });
  prism = await startPrism(path, server.url);
}, 60_000);
afterAll(async () => {
  process.env = { ...saved };
  await prism?.close();
  await server?.close();
  tmp?.cleanup();
});

describe('vwh sync through Prism', () => {
  it('lands a whole small world, every exchange within the document', async () => {
    const user = server.state.accounts.usersByEmail.get(DEMO_EMAIL);
    if (!user) throw new Error('the demo world has no demo user');
    // Content for the services' streams, made through Prism too: two tasks that write articles, one published, and
    // a second member of the demo user's team.
    for (const topic of ['gravel bikes', 'bike fitting']) {
      await service('POST', '/api/v1/tasks', { user_prompt: `A guide to ${topic}`, keywords: [topic] });
    }
    control.advanceClock(server.state, { seconds: 60 });
    await service('GET', '/api/v1/tasks?limit=10');
    const { articles } = await service<{ articles: Array<{ article_id: string }> }>('GET', '/api/v1/articles');
    await service('PATCH', `/api/v1/articles/${articles[0]?.article_id}`, { publication_status: 'published' });
    const { team_id } = await service<{ team_id: string }>('GET', `/api/v2/teams/me?user_id=${user.id}`);
    await service('POST', `/api/v2/teams/${team_id}/members`, { user_id: user.id, email: 'analyst@example.com' });

    process.env.VWH_API_KEY = server.demoApiKey ?? '';
    process.env.VWH_BASE_URL = `${prism.url}/api/public/v1`;
    process.env.VWH_SERVICES_BASE_URL = prism.url;
    process.env.VWH_USER_ID = user.id;
    process.env.VWH_LOG_LEVEL = 'error';
    const code = await main([
      'node',
      'vwh',
      'sync',
      '--db',
      tmp.db,
      '--today',
      TODAY,
      '--rate-window-ms',
      String(WINDOW_MS),
      '--log-format',
      'json',
    ]);
    // Prism's log is complete once it has exited.
    await prism.close();
    expect(prism.violations()).toEqual([]);
    expect(code).toBe(0);

    const wh = await openWarehouse(tmp.db);
    try {
      const [rows] = await query<Record<string, number>>(
        wh,
        `SELECT (SELECT count(*) FROM raw.prompts) AS prompts, (SELECT count(*) FROM raw.chats) AS chats,
                (SELECT count(*) FROM raw.sources) AS sources, (SELECT count(*) FROM raw.content_tasks) AS tasks,
                (SELECT count(*) FROM raw.articles) AS articles, (SELECT count(*) FROM raw.team_members) AS members`,
      );
      expect(rows).toMatchObject({ prompts: 3, tasks: 2, articles: 2, members: 2 });
      expect(Number(rows?.chats)).toBeGreaterThan(0);
      expect(Number(rows?.sources)).toBeGreaterThan(0);
      const [run] = await query<{ requests: number }>(wh, 'SELECT requests FROM ops.sync_runs');
      // Every request of the run went through Prism (the setup's seven calls above came first).
      expect(prism.requests()).toBe(Number(run?.requests) + 7);
    } finally {
      wh.close();
    }
  });
});
