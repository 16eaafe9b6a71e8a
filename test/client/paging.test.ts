import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { paginate } from '../../src/client/paging.js';
import { RateBudget } from '../../src/client/rate-budget.js';
import { ManualClock } from '../../src/core/clock.js';
import { KEY, listSourcesLike, listThings, PROJECT, sourceDetailLike } from './support/endpoints.js';
import { json, startServer, type TestServer } from './support/server.js';

let server: TestServer | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function setup(handler: Parameters<typeof startServer>[0]) {
  server = await startServer(handler);
  const clock = new ManualClock(0);
  client = new ApiClient({ baseUrl: server.url, apiKey: KEY, clock, budget: new RateBudget({ clock }) });
  return { server, client };
}

async function collect<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of gen) out.push(item);
  return out;
}

describe('paging', () => {
  it('page-until-empty: asks until an empty array, keeps the query', async () => {
    const { server, client } = await setup((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page'));
      const data = page <= 3 ? [{ domain: `d${page}a` }, { domain: `d${page}b` }] : [];
      json(res, 200, { success: true, data });
    });
    const pages = await collect(
      paginate(
        client,
        listSourcesLike,
        { path: { project_id: PROJECT }, query: { date_from: '2026-01-01' } as never },
        { pageSize: 2 },
      ),
    );
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(pages.flatMap((p) => (p.result.ok ? p.result.data.map((d) => d.domain) : []))).toHaveLength(6);
    expect(server.hits.map((h) => h.url)).toEqual(
      [1, 2, 3, 4].map((p) => `/api/public/v1/projects/${PROJECT}/sources?date_from=2026-01-01&page=${p}&page_size=2`),
    );
  });

  it('page-until-empty: a drifted page still pages on', async () => {
    const { client } = await setup((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page'));
      json(res, 200, { success: true, data: page === 1 ? [{ domain: 7 }] : [] });
    });
    const pages = await collect(paginate(client, listSourcesLike, { path: { project_id: PROJECT } }));
    expect(pages).toHaveLength(1);
    expect(pages[0]?.result.ok).toBe(false);
  });

  it('page-total: asks until every paginated part is read to its total', async () => {
    const { server, client } = await setup((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page'));
      const part = (total: number) => {
        const from = (page - 1) * 10;
        const count = Math.max(0, Math.min(10, total - from));
        return { page, page_size: 10, total, items: Array.from({ length: count }, (_, i) => from + i) };
      };
      json(res, 200, { success: true, data: { stats: {}, urls: part(25), prompts: part(4) } });
    });
    const pages = await collect(
      paginate(client, sourceDetailLike, { path: { project_id: PROJECT, domain: 'example.com' } }),
    );
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(server.hits).toHaveLength(3);
  });

  it('an endpoint that does not page is one call', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, { success: true, data: [] }));
    const pages = await collect(paginate(client, listThings, { path: { project_id: PROJECT } }));
    expect(pages).toHaveLength(1);
    expect(server.hits[0]?.url).toBe(`/api/public/v1/projects/${PROJECT}/things`);
  });
});
