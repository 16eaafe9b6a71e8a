/**
 * Analytics reads: every read endpoint against its served schema, date-range rules, provider filter, sources paged
 * until an empty page, late answers, and the served aggregates recomputed from the served chats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { expectError, expectServed, firstProject, get, post, start } from './support.js';

interface Chat {
  date: string;
  platform: string;
  mentioned: boolean;
  position: number | null;
  sentiment: number | null;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

describe('analytics reads', () => {
  let server: ReferenceServer;
  let p: string;
  let promptId: string;
  beforeAll(async () => {
    server = await start({ lateFraction: 0.3 });
    const first = await firstProject(server);
    p = `/projects/${first.projectId}`;
    promptId = first.promptId;
  });
  afterAll(() => server.close());

  it('serves every read endpoint in the shape of the contract', async () => {
    expectServed('listProjects', await get(server, '/projects'));
    expectServed('getProject', await get(server, p));
    const range = '?duration_days=14';
    const analytics = expectServed(
      'getPromptAnalytics',
      await get(server, `${p}/prompts/${promptId}/analytics${range}`),
    );
    expect(Object.keys(analytics.visibility_chart).length).toBeGreaterThan(0);
    const chats = expectServed('getPromptChats', await get(server, `${p}/prompts/${promptId}/chats${range}`));
    expect(chats.items.length).toBeGreaterThan(0);
    expect(chats.items.every((c: { chat_preview: string }) => c.chat_preview.length <= 150)).toBe(true);
    const domains = expectServed('getPromptDomains', await get(server, `${p}/prompts/${promptId}/domains${range}`));
    const counts = domains.items.map((d: { citation_count: number }) => d.citation_count);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    const urls = expectServed('getPromptUrls', await get(server, `${p}/prompts/${promptId}/urls${range}`));
    const mentioned = urls.items.map((u: { mentioned_count: number }) => u.mentioned_count);
    expect(mentioned).toEqual([...mentioned].sort((a: number, b: number) => b - a));
    expectServed('getOverview', await get(server, `${p}/overview${range}`));
    expectServed('getVisibilityTrend', await get(server, `${p}/visibility${range}`));
    const sources = expectServed('listSources', await get(server, `${p}/sources${range}`));
    expectServed('getSourcesAnalytics', await get(server, `${p}/sources/analytics${range}`));
    const domain = sources[0].domain;
    const sourceChats = expectServed('getSourceChats', await get(server, `${p}/sources/${domain}/chats${range}`));
    expect(sourceChats.items.length).toBeLessThanOrEqual(10);
    expectError(await get(server, `${p}/sources/${domain}/chats?page_size=51`), 400, /^Invalid request/);
    expectError(await get(server, `${p}/sources/${domain}/detail?page_size=101`), 400, /^Invalid request/);
    expectError(await get(server, `${p}/sources?page_size=101`), 400, /^Invalid request/);
  });

  it('serves source detail paged, in the shape of the contract', async () => {
    const domain = (await get(server, `${p}/sources?duration_days=14`)).body.data[0].domain;
    const detail = expectServed(
      'getSourceDetail',
      await get(server, `${p}/sources/${domain}/detail?duration_days=14&page_size=2`),
    );
    expect(detail.urls.page_size).toBe(2);
    expect(detail.urls.items.length).toBeLessThanOrEqual(2);
    expect(detail.stats.total_urls).toBe(detail.urls.total);
    const unknown = expectServed('getSourceDetail', await get(server, `${p}/sources/never-cited.example/detail`));
    expect(unknown.stats).toMatchObject({ total_citations: 0, citation_share: 0, category: 5 });
  });

  it('pages sources until an empty page, sorted by reference_count descending', async () => {
    const all = (await get(server, `${p}/sources?duration_days=30&page_size=100`)).body.data;
    const paged: Array<{ domain: string; reference_count: number }> = [];
    for (let page = 1; page < 100; page++) {
      const rows = (await get(server, `${p}/sources?duration_days=30&page_size=7&page=${page}`)).body.data;
      if (rows.length === 0) break;
      paged.push(...rows);
    }
    expect(paged).toEqual(all);
    const counts = all.map((s: { reference_count: number }) => s.reference_count);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
  });

  it('resolves date ranges: explicit dates win over duration_days; date_to defaults to today', async () => {
    const trend = async (q: string) => (await get(server, `${p}/visibility?${q}`)).body.data.dates as string[];
    expect(await trend('')).toHaveLength(7);
    expect((await trend('')).at(-1)).toBe(TODAY);
    expect(await trend('duration_days=3')).toEqual(['2026-03-13', '2026-03-14', '2026-03-15']);
    expect(await trend('duration_days=30&date_from=2026-03-01&date_to=2026-03-04')).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
    ]);
    expect((await trend('date_from=2026-03-10')).at(0)).toBe('2026-03-10');
    expect(await trend('date_to=2026-03-10&duration_days=2')).toEqual(['2026-03-09', '2026-03-10']);
    expectError(
      await get(server, `${p}/visibility?date_from=2026-03-10&date_to=2026-03-01`),
      400,
      'date_from must not be after date_to',
    );
    expectError(await get(server, `${p}/visibility?date_from=2026-02-30`), 400, /^Invalid request/);
    expectError(await get(server, `${p}/visibility?duration_days=0`), 400, /^Invalid request/);
    expectError(
      await get(server, `${p}/overview?prompt_type=inactive`),
      400,
      "prompt_type must be 'active' or 'suggested'",
    );
  });

  it('filters on providers', async () => {
    const all = (await get(server, `${p}/prompts/${promptId}/chats?duration_days=7`)).body.data.items as Chat[];
    const platforms = [...new Set(all.map((c) => c.platform))];
    expect(platforms.length).toBeGreaterThan(1);
    const one = (await get(server, `${p}/prompts/${promptId}/chats?duration_days=7&providers=${platforms[0]}`)).body
      .data.items as Chat[];
    expect(one.length).toBeGreaterThan(0);
    expect(one.every((c) => c.platform === platforms[0])).toBe(true);
    const two = (
      await get(server, `${p}/prompts/${promptId}/chats?duration_days=7&providers=${platforms.slice(0, 2).join(',')}`)
    ).body.data.items;
    expect(two.length).toBe(all.filter((c) => platforms.slice(0, 2).includes(c.platform)).length);
  });

  it('recomputes prompt visibility, position and sentiment from the served chats', async () => {
    const q = '?date_from=2026-03-01&date_to=2026-03-14';
    const chats = (await get(server, `${p}/prompts/${promptId}/chats${q}`)).body.data.items as Chat[];
    const analytics = (await get(server, `${p}/prompts/${promptId}/analytics${q}`)).body.data;
    expect(analytics.volume).toBe(chats.length);
    const cells = new Map<string, Chat[]>();
    for (const chat of chats) {
      const key = `${chat.date.slice(0, 10)}|${chat.platform}`;
      cells.set(key, [...(cells.get(key) ?? []), chat]);
    }
    let compared = 0;
    for (const [key, group] of cells) {
      const [day, provider] = key.split('|') as [string, string];
      const hits = group.filter((c) => c.mentioned);
      const served = (chart: string) =>
        (analytics[chart][day] as Array<{ provider: string; value: number }>).find((v) => v.provider === provider)
          ?.value;
      expect(served('visibility_chart')).toBe(round2((hits.length / group.length) * 100));
      const position = mean(hits.map((c) => c.position as number));
      const sentiment = mean(hits.map((c) => c.sentiment as number));
      expect(served('position_chart')).toBe(position === null ? undefined : round2(position));
      expect(served('sentiment_chart')).toBe(sentiment === null ? undefined : round2(sentiment));
      compared++;
    }
    expect(compared).toBeGreaterThan(10);
    const ownSentiment = mean(chats.filter((c) => c.mentioned).map((c) => c.sentiment as number));
    expect(analytics.sentiment).toBe(ownSentiment === null ? null : Math.round(ownSentiment));

    const overview = (await get(server, `${p}/overview${q}`)).body.data.items.find(
      (i: { prompt_id: string }) => i.prompt_id === promptId,
    );
    const hits = chats.filter((c) => c.mentioned);
    expect(overview.visibility).toBe(round2((hits.length / chats.length) * 100));
    expect(overview.position).toBe(round2(mean(hits.map((c) => c.position as number)) ?? 0));
    expect(overview.sentiment).toBe(round2(mean(hits.map((c) => c.sentiment as number)) ?? 0));
  });

  it("publishes a day's answers at 06:00 UTC once the clock reaches it, late ones a day later", async () => {
    const prompts = (await get(server, `${p}/prompts`)).body.data.prompts.filter(
      (x: { prompt_type: string }) => x.prompt_type === 'active',
    );
    const count = async (day: string) => {
      let n = 0;
      for (const prompt of prompts) {
        n += (await get(server, `${p}/prompts/${prompt.id}/chats?date_from=${day}&date_to=${day}`)).body.data.items
          .length;
      }
      return n;
    };
    expect(await count('2026-03-16')).toBe(0);
    await post(server, '/_reference/clock', { advance_days: 1 });
    const onTime = await count('2026-03-16');
    expect(onTime).toBeGreaterThan(0);
    await post(server, '/_reference/clock', { advance_days: 1 });
    const withLate = await count('2026-03-16');
    expect(withLate).toBeGreaterThan(onTime);
    expect(withLate).toBe(prompts.length * server.state.world.providers.length);
  });
});
