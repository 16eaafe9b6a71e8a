/**
 * An analyst who downloads every chat of a project over HTTP and recomputes the aggregates gets the numbers the
 * API serves: prompt analytics, prompt domains and URLs, competitor metrics, overview, visibility trend, sources,
 * sources analytics (stats, category breakdown, performance chart, top domains, and the opportunities rule "cited 3
 * or more times, brand not mentioned"). Floats are rounded to 2 decimals, as served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { call, type Json, start } from './support.js';

interface Chat {
  date: string;
  platform: string;
  mentioned: boolean;
  position: number | null;
  sentiment: number | null;
  prompt_id: string;
  references: Array<{ title: string; link: string }>;
  brands_mentioned: Record<string, { position: number; count: number }> | null;
  sentiment_by_brands: Record<string, number> | null;
}

const FROM = '2026-03-02';
const TO = '2026-03-15';
const Q = `?date_from=${FROM}&date_to=${TO}`;
const CATEGORIES = ['corporate', 'editorial', 'institutional', 'reference', 'ugc', 'other'];

const round2 = (x: number) => Math.round(x * 100) / 100;
const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const roundOrNull = (x: number | null) => (x === null ? null : round2(x));
const dayOf = (iso: string) => iso.slice(0, 10);
/** The source domain of a cited link, as the sources endpoints name it. */
const domainOf = (link: string) => new URL(link).hostname.toLowerCase().replace(/^(www\.|en\.)/, '');

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

function count<T>(items: readonly T[], key: (item: T) => string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) for (const k of key(item)) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

describe('recomputing the served aggregates from the served chats', () => {
  let server: ReferenceServer;
  let key: string;
  let p: string;
  let prompts: Array<{ id: string; prompt_type: string }>;
  let chats: Chat[];
  const get = async (path: string): Promise<Json> => {
    const res = await call(server, 'GET', path, { key });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    server = await start({ projects: 1, prompts: 6, historyDays: 30, lateFraction: 0.2 });
    key = control.mintKey(server.state, { apiKey: server.demoApiKey, role: 'admin', tier: 'premium' }).api_key;
    const project = (await get('/projects'))[0];
    p = `/projects/${project.id}`;
    prompts = (await get(`${p}/prompts`)).prompts;
    chats = [];
    for (const prompt of prompts) {
      const items = (await get(`${p}/prompts/${prompt.id}/chats${Q}`)).items as Chat[];
      chats.push(...items.map((c) => ({ ...c, prompt_id: prompt.id })));
    }
  });
  afterAll(() => server.close());

  it('has answers that mention the brand and answers that do not, from several providers', () => {
    expect(chats.length).toBeGreaterThan(100);
    expect(chats.some((c) => c.mentioned)).toBe(true);
    expect(chats.some((c) => !c.mentioned)).toBe(true);
    expect(new Set(chats.map((c) => c.platform)).size).toBe(3);
  });

  it('prompt analytics: volume, sentiment, and the per-day per-provider charts', async () => {
    for (const prompt of prompts) {
      const own = chats.filter((c) => c.prompt_id === prompt.id);
      const served = await get(`${p}/prompts/${prompt.id}/analytics${Q}`);
      expect(served.volume).toBe(own.length);
      const s = mean(own.filter((c) => c.mentioned).map((c) => c.sentiment as number));
      expect(served.sentiment).toBe(s === null ? null : Math.round(s));
      const cells = groupBy(own, (c) => `${dayOf(c.date)}|${c.platform}`);
      const servedCells = Object.values(served.visibility_chart as Record<string, unknown[]>).flat().length;
      expect(servedCells).toBe(cells.size);
      for (const [cell, group] of cells) {
        const [day, provider] = cell.split('|') as [string, string];
        const value = (chart: string) =>
          (served[chart][day] as Array<{ provider: string; value: number }> | undefined)?.find(
            (v) => v.provider === provider,
          )?.value ?? null;
        const hits = group.filter((c) => c.mentioned);
        expect(value('visibility_chart')).toBe(round2((hits.length / group.length) * 100));
        expect(value('position_chart')).toBe(roundOrNull(mean(hits.map((c) => c.position as number))));
        expect(value('sentiment_chart')).toBe(roundOrNull(mean(hits.map((c) => c.sentiment as number))));
      }
    }
  });

  it('prompt domains: citations, share of answers, citations per day, brand presence, brands seen', async () => {
    const categories = new Map<string, number>(
      (await get(`${p}/sources${Q}&page_size=100`)).map((s: Json) => [s.domain, s.category]),
    );
    for (const prompt of prompts) {
      const own = chats.filter((c) => c.prompt_id === prompt.id);
      const days = new Set(own.map((c) => dayOf(c.date))).size;
      const served = (await get(`${p}/prompts/${prompt.id}/domains${Q}`)).items as Json[];
      const citations = count(own, (c) => c.references.map((r) => domainOf(r.link)));
      expect(new Map(served.map((d) => [d.domain, d.citation_count]))).toEqual(citations);
      for (const d of served) {
        const citing = own.filter((c) => c.references.some((r) => domainOf(r.link) === d.domain));
        expect(d.used_percentage).toBe(round2((citing.length / own.length) * 100));
        expect(d.avg_citations).toBe(round2(d.citation_count / days));
        expect(d.mentioned).toBe(citing.some((c) => c.mentioned));
        expect(d.domain_type).toBe(categories.get(d.domain));
        const brands = new Set(citing.flatMap((c) => Object.keys(c.brands_mentioned ?? {})));
        expect(new Set(d.brands_appeared.map((b: { name: string }) => b.name))).toEqual(brands);
      }
    }
  });

  it('prompt URLs: citations, title, first and last seen, brands seen', async () => {
    for (const prompt of prompts) {
      const own = chats.filter((c) => c.prompt_id === prompt.id);
      const served = (await get(`${p}/prompts/${prompt.id}/urls${Q}`)).items as Json[];
      const cited = count(own, (c) => c.references.map((r) => r.link));
      expect(new Map(served.map((u) => [u.url, u.mentioned_count]))).toEqual(cited);
      for (const u of served) {
        const citing = own.filter((c) => c.references.some((r) => r.link === u.url));
        const dates = citing.map((c) => c.date).sort();
        expect(u.first_seen).toBe(dates[0]);
        expect(u.last_seen).toBe(dates.at(-1));
        // A page has one title, whichever answer cites it.
        const titles = new Set(chats.flatMap((c) => c.references.filter((r) => r.link === u.url).map((r) => r.title)));
        expect([...titles]).toEqual([u.title]);
        expect(u.domain).toBe(domainOf(u.url));
        const brands = new Set(citing.flatMap((c) => Object.keys(c.brands_mentioned ?? {})));
        expect(new Set(u.brands_appear.map((b: { name: string }) => b.name))).toEqual(brands);
      }
    }
  });

  it('competitor metrics: mentions, visibility, position, sentiment, days with data', async () => {
    const served = (await get(`${p}/competitors${Q}`)).active_competitors as Json[];
    const days = new Set(chats.map((c) => dayOf(c.date))).size;
    let checked = 0;
    for (const c of served) {
      if (c.competitor_id === '00000000-0000-0000-0000-000000000000') {
        expect(c.metrics).toMatchObject({ visibility: 0, mention_count: 0 });
        continue;
      }
      const hits = chats.filter((chat) => chat.brands_mentioned?.[c.name]);
      expect(c.metrics.mention_count).toBe(hits.length);
      expect(c.metrics.visibility).toBe(round2((hits.length / chats.length) * 100));
      expect(c.metrics.position).toBe(roundOrNull(mean(hits.map((h) => h.brands_mentioned?.[c.name]?.position ?? 0))));
      expect(c.metrics.sentiment).toBe(roundOrNull(mean(hits.map((h) => h.sentiment_by_brands?.[c.name] ?? 0))));
      expect(c.metrics.days_with_data).toBe(days);
      expect(c.metrics.period).toBe(`${FROM} to ${TO}`);
      if (c.is_own_brand) expect(hits.length).toBe(chats.filter((chat) => chat.mentioned).length);
      checked++;
    }
    expect(checked).toBeGreaterThan(2);
  });

  it('overview: per-prompt visibility, position, sentiment and competitors mentioned', async () => {
    const served = (await get(`${p}/overview${Q}`)).items as Json[];
    expect(served.map((i) => i.prompt_id).sort()).toEqual(
      prompts
        .filter((x) => x.prompt_type === 'active')
        .map((x) => x.id)
        .sort(),
    );
    for (const item of served) {
      const own = chats.filter((c) => c.prompt_id === item.prompt_id);
      const hits = own.filter((c) => c.mentioned);
      expect(item.visibility).toBe(own.length === 0 ? 0 : round2((hits.length / own.length) * 100));
      expect(item.position).toBe(round2(mean(hits.map((c) => c.position as number)) ?? 0));
      expect(item.sentiment).toBe(round2(mean(hits.map((c) => c.sentiment as number)) ?? 0));
      for (const rival of item.competitors_mentioned as Array<{ name: string; mention_count: number }>) {
        expect(rival.mention_count).toBe(own.filter((c) => c.brands_mentioned?.[rival.name]).length);
      }
    }
  });

  it('visibility trend: per day, each provider computed then averaged, for every series', async () => {
    const trend = await get(`${p}/visibility${Q}`);
    expect(trend.dates[0]).toBe(FROM);
    expect(trend.dates.at(-1)).toBe(TO);
    const byDay = groupBy(chats, (c) => dayOf(c.date));
    for (const series of trend.series as Json[]) {
      const hit = (c: Chat) => (series.is_own_brand ? c.mentioned : Boolean(c.brands_mentioned?.[series.name]));
      const pos = (c: Chat) => (series.is_own_brand ? c.position : c.brands_mentioned?.[series.name]?.position) ?? 0;
      const sen = (c: Chat) => (series.is_own_brand ? c.sentiment : c.sentiment_by_brands?.[series.name]) ?? 0;
      trend.dates.forEach((date: string, i: number) => {
        const providers = [...groupBy(byDay.get(date) ?? [], (c) => c.platform).values()];
        const perProvider = (f: (cs: Chat[]) => number | null) =>
          roundOrNull(mean(providers.map(f).filter((v): v is number => v !== null)));
        expect(series.visibility[i]).toBe(perProvider((cs) => (cs.filter(hit).length / cs.length) * 100));
        expect(series.position[i]).toBe(perProvider((cs) => mean(cs.filter(hit).map(pos))));
        expect(series.sentiment[i]).toBe(perProvider((cs) => mean(cs.filter(hit).map(sen))));
      });
    }
  });

  it('sources and sources analytics, including the opportunities rule', async () => {
    const served = (await get(`${p}/sources${Q}&page_size=100`)) as Json[];
    const cited = count(chats, (c) => c.references.map((r) => domainOf(r.link)));
    expect(new Map(served.map((s) => [s.domain, s.reference_count]))).toEqual(cited);
    const category = new Map<string, number>(served.map((s) => [s.domain, s.category]));
    const total = [...cited.values()].reduce((a, b) => a + b, 0);

    const analytics = await get(`${p}/sources/analytics${Q}`);
    expect(analytics.stats).toEqual({ total_sources: cited.size, total_citations: total });
    const byCategory = CATEGORIES.map(() => 0);
    for (const [domain, n] of cited) {
      const i = category.get(domain) as number;
      byCategory[i] = (byCategory[i] ?? 0) + n;
    }
    expect(analytics.category_breakdown).toEqual(
      Object.fromEntries(CATEGORIES.map((name, i) => [name, round2(((byCategory[i] ?? 0) / total) * 100)])),
    );
    expect(analytics.top_domains).toEqual(served.slice(0, 20));

    const chart = analytics.performance_chart;
    expect(chart.series.map((s: { domain: string }) => s.domain)).toEqual(served.slice(0, 10).map((s) => s.domain));
    const byDay = groupBy(chats, (c) => dayOf(c.date));
    for (const s of chart.series as Array<{ domain: string; values: number[] }>) {
      chart.dates.forEach((date: string, i: number) => {
        const refs = (byDay.get(date) ?? []).flatMap((c) => c.references.map((r) => domainOf(r.link)));
        const share = refs.length === 0 ? 0 : (refs.filter((d) => d === s.domain).length / refs.length) * 100;
        expect(s.values[i]).toBe(round2(share));
      });
    }

    const withoutBrand = count(
      chats.filter((c) => !c.mentioned),
      (c) => c.references.map((r) => domainOf(r.link)),
    );
    const ownDomain = domainOf((await get(p)).website_url);
    const expected = [...withoutBrand].filter(([domain, n]) => n >= 3 && domain !== ownDomain);
    expect(expected.length).toBeGreaterThan(0);
    expect(
      new Map(
        analytics.opportunities.map((o: { domain: string; citation_count: number }) => [o.domain, o.citation_count]),
      ),
    ).toEqual(new Map(expected));
    for (const o of analytics.opportunities as Json[]) {
      expect(o.category).toBe(category.get(o.domain));
      expect(o.category_name).toBe(CATEGORIES[o.category]);
    }
  });
});
