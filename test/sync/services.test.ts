import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSyncCommand } from '../../src/cli/commands/sync.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { DEMO_EMAIL } from '../../src/reference/state/demo-team.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { TODAY } from '../fixtures.js';
import { startRewritingProxy } from './proxy.js';
import { openWarehouse, query, runSync, startWorld, tempDir, WINDOW_MS } from './support.js';

const STREAMS = ['content_tasks', 'articles', 'team_members'];

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;
let wh: Warehouse;
let userId: string;

async function http<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(server.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** What the services serve, read through plain HTTP: the truth the warehouse is compared with. */
async function servicesTruth() {
  const tasks = await http<{ tasks: Array<{ task_id: string; status: string }>; total: number }>(
    'GET',
    '/api/v1/tasks?limit=100',
  );
  const articles = await http<{ articles: Array<{ article_id: string; publication_status: string }> }>(
    'GET',
    '/api/v1/articles?page_size=100',
  );
  const team = await http<{ team_id: string }>('GET', `/api/v2/teams/me?user_id=${userId}`);
  const members = await http<Array<{ email: string; status: string }>>(
    'GET',
    `/api/v2/teams/${team.team_id}/members?user_id=${userId}`,
  );
  return {
    tasks: tasks.tasks.map((t) => `${t.task_id} ${t.status}`).sort(),
    articles: articles.articles.map((a) => `${a.article_id} ${a.publication_status}`).sort(),
    members: members.map((m) => `${m.email} ${m.status}`).sort(),
    teamId: team.team_id,
  };
}

beforeAll(async () => {
  server = await startWorld();
  tmp = tempDir();
  wh = await openWarehouse(tmp.db);
  const user = server.state.accounts.usersByEmail.get(DEMO_EMAIL);
  if (!user) throw new Error('the demo world has no demo user');
  userId = user.id;
  // Five tasks run to completion (each writes an article), a sixth is cancelled, and one article is published.
  for (let i = 0; i < 5; i++) {
    await http('POST', '/api/v1/tasks', { user_prompt: `Guide number ${i} to gravel bikes`, keywords: ['gravel'] });
  }
  control.advanceClock(server.state, { seconds: 60 });
  const cancelled = await http<{ task_id: string }>('POST', '/api/v1/tasks', { user_prompt: 'A task cancelled' });
  await http('DELETE', `/api/v1/tasks/${cancelled.task_id}`);
  await http('GET', '/api/v1/tasks?limit=100');
  const { articles } = await http<{ articles: Array<{ article_id: string }> }>('GET', '/api/v1/articles');
  await http('PATCH', `/api/v1/articles/${articles[0]?.article_id}`, { publication_status: 'published' });
  const { team_id } = await http<{ team_id: string }>('GET', `/api/v2/teams/me?user_id=${userId}`);
  await http('POST', `/api/v2/teams/${team_id}/members`, { user_id: userId, email: 'new.analyst@example.com' });
});
afterAll(async () => {
  wh.close();
  await server.close();
  tmp.cleanup();
});

describe('the services of the second document', () => {
  it('land content_tasks, articles and team_members from the configured services base URL, without the key', async () => {
    const seen: Array<{ path: string; key: boolean }> = [];
    const proxy = await startRewritingProxy(
      server.url,
      (_path, body) => body,
      (path, headers) => seen.push({ path, key: headers['x-api-key'] !== undefined }),
    );
    try {
      const result = await runSync(server, wh, { streams: STREAMS, servicesBaseUrl: proxy.url, userId });
      expect(result.status).toBe('succeeded');
      const truth = await servicesTruth();
      expect(truth.tasks).toHaveLength(6);
      expect(truth.articles).toHaveLength(5);
      expect(truth.members.length).toBeGreaterThanOrEqual(2);

      const tasks = await query<{ r: string }>(
        wh,
        "SELECT task_id || ' ' || status AS r FROM raw.content_tasks ORDER BY 1",
      );
      const articles = await query<{ r: string }>(
        wh,
        "SELECT article_id || ' ' || publication_status AS r FROM raw.articles ORDER BY 1",
      );
      const members = await query<{ r: string; api_team_id: string }>(
        wh,
        "SELECT email || ' ' || status AS r, api_team_id FROM raw.team_members ORDER BY 1",
      );
      expect(tasks.map((t) => t.r)).toEqual(truth.tasks);
      expect(articles.map((a) => a.r)).toEqual(truth.articles);
      expect(members.map((m) => m.r)).toEqual(truth.members);
      expect(new Set(members.map((m) => m.api_team_id))).toEqual(new Set([truth.teamId]));

      // Typed columns: lists, timestamps, the flattened inputs and error, the team on every row.
      const [typed] = await query<{ k: string; p: number; t: string; published: number; team: string }>(
        wh,
        `SELECT (SELECT any_value(keywords[1]) FROM raw.content_tasks WHERE len(keywords) > 0) AS k,
                (SELECT count(*) FROM raw.content_tasks WHERE status = 'completed' AND completed_at IS NOT NULL) AS p,
                (SELECT typeof(any_value(created_at)) FROM raw.articles) AS t,
                (SELECT count(*) FROM raw.articles WHERE published_at IS NOT NULL) AS published,
                (SELECT any_value(team_id) FROM raw.team_members) AS team`,
      );
      expect(typed).toEqual({ k: 'gravel', p: 5, t: 'TIMESTAMP', published: 1, team: 'team-demo' });

      // Every service request went to the services base URL, and none carried the API key.
      const servicePaths = seen.filter((s) => /^\/api\/v[12]\//.test(s.path));
      expect(servicePaths.map((s) => s.path)).toEqual(
        expect.arrayContaining(['/api/v1/tasks', '/api/v1/articles', '/api/v2/teams/me']),
      );
      expect(servicePaths.every((s) => !s.key)).toBe(true);
      expect(seen.filter((s) => s.path.startsWith('/api/public/'))).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('a second sync the same day fetches none of them again; a refresh replaces them whole (a deleted article goes)', async () => {
    const again = await runSync(server, wh, { streams: STREAMS, userId });
    expect(again.plan?.streams.map((s) => s.units)).toEqual([0, 0, 0]);
    await http(
      'DELETE',
      `/api/v1/articles/${(await query<{ id: string }>(wh, 'SELECT article_id AS id FROM raw.articles LIMIT 1'))[0]?.id}`,
    );
    const next = await runSync(server, wh, { streams: STREAMS, userId, fullRefresh: true });
    expect(next.status).toBe('succeeded');
    const truth = await servicesTruth();
    const articles = await query<{ r: string }>(
      wh,
      "SELECT article_id || ' ' || publication_status AS r FROM raw.articles ORDER BY 1",
    );
    expect(articles.map((a) => a.r)).toEqual(truth.articles);
    expect(truth.articles).toHaveLength(4);
  });

  it('--plan says team_members is skipped without a user id, and plans it with --user-id', async () => {
    const plan = async (extra: { userId?: string }) => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (c) => {
        text += String(c);
      });
      process.env.VWH_API_KEY = server.demoApiKey ?? '';
      const code = await runSyncCommand(
        {
          db: `${tmp.dir}/plan.duckdb`,
          baseUrl: server.url,
          servicesBaseUrl: server.url,
          plan: true,
          today: TODAY,
          rateWindowMs: WINDOW_MS,
          logFormat: 'human',
          streams: STREAMS,
          ...extra,
        },
        out,
      );
      delete process.env.VWH_API_KEY;
      expect(code).toBe(0);
      return text;
    };
    expect(await plan({})).toMatch(/team_members\s+0\s+0\s+skipped: needs the user id/);
    expect(await plan({ userId })).toMatch(/team_members\s+1\s+2\s+0\/1/);
  });
});
