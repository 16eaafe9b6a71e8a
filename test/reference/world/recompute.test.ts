/**
 * An analyst who recomputes the served aggregates from the chats gets the same numbers:
 * visibility = mentioned chats / chats x 100, position and sentiment = means over mentioning chats,
 * floats rounded to 2 decimals, several providers on one day averaged (trend).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ChatItem } from '../../../src/reference/world/metrics/chats.js';
import type { ProjectConfig } from '../../../src/reference/world/types.js';
import { dayOf, demo, query, SEED } from './support.js';

const world = createWorld({ seed: SEED });
const round2 = (x: number) => Math.round(x * 100) / 100;
const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);
const RANGE = query('2026-10-01', '2026-11-21');

let projects: ProjectConfig[];
let chats: Map<string, { project: ProjectConfig; items: ChatItem[] }>;

beforeAll(() => {
  projects = demo({ prompts: 10, days: 120 });
  chats = new Map();
  for (const project of projects) {
    for (const prompt of project.prompts) {
      chats.set(prompt.id, { project, items: world.promptChats(project, prompt.id, RANGE).items as ChatItem[] });
    }
  }
});

function chatsOf(project: ProjectConfig): ChatItem[] {
  return project.prompts.flatMap((p) => chats.get(p.id)?.items ?? []);
}

describe('recomputing from chats', () => {
  test('the fixture has answers, mentions and misses', () => {
    const all = projects.flatMap(chatsOf);
    expect(all.length).toBeGreaterThan(1000);
    expect(all.some((c) => c.mentioned)).toBe(true);
    expect(all.some((c) => !c.mentioned)).toBe(true);
  });

  test('prompt analytics charts, volume and sentiment', () => {
    for (const project of projects) {
      for (const prompt of project.prompts) {
        const items = chats.get(prompt.id)?.items ?? [];
        const served = world.promptAnalytics(project, prompt.id, RANGE) as {
          volume: number;
          sentiment: number | null;
          visibility_chart: Record<string, Array<{ provider: string; value: number }>>;
          position_chart: Record<string, Array<{ provider: string; value: number }>>;
          sentiment_chart: Record<string, Array<{ provider: string; value: number }>>;
        };
        expect(served.volume).toBe(items.length);
        const sentiments = items.filter((c) => c.mentioned).map((c) => c.sentiment as number);
        const s = mean(sentiments);
        expect(served.sentiment).toBe(s === null ? null : Math.round(s));
        const cells = new Map<string, ChatItem[]>();
        for (const c of items) {
          const key = `${dayOf(c.date)}|${c.platform}`;
          cells.set(key, [...(cells.get(key) ?? []), c]);
        }
        let checked = 0;
        for (const [date, values] of Object.entries(served.visibility_chart)) {
          for (const { provider, value } of values) {
            const cell = cells.get(`${date}|${provider}`) ?? [];
            const mentioned = cell.filter((c) => c.mentioned);
            expect(value).toBe(round2((mentioned.length / cell.length) * 100));
            const pos = served.position_chart[date]?.find((v) => v.provider === provider);
            const sen = served.sentiment_chart[date]?.find((v) => v.provider === provider);
            const p = mean(mentioned.map((c) => c.position as number));
            const se = mean(mentioned.map((c) => c.sentiment as number));
            expect(pos?.value ?? null).toBe(p === null ? null : round2(p));
            expect(sen?.value ?? null).toBe(se === null ? null : round2(se));
            checked++;
          }
        }
        expect(checked).toBe(cells.size);
      }
    }
  });

  test('overview items', () => {
    for (const project of projects) {
      const { items } = world.overview(project, RANGE, 'active') as { items: Array<Record<string, unknown>> };
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        const list = chats.get(item.prompt_id as string)?.items ?? [];
        const mentioned = list.filter((c) => c.mentioned);
        expect(item.visibility).toBe(list.length === 0 ? 0 : round2((mentioned.length / list.length) * 100));
        expect(item.position).toBe(round2(mean(mentioned.map((c) => c.position as number)) ?? 0));
        expect(item.sentiment).toBe(round2(mean(mentioned.map((c) => c.sentiment as number)) ?? 0));
        for (const rival of item.competitors_mentioned as Array<{ name: string; mention_count: number }>) {
          expect(rival.mention_count).toBe(list.filter((c) => c.brands_mentioned?.[rival.name]).length);
        }
      }
    }
  });

  test('competitor metrics, including the own brand when it is a competitor', () => {
    let ownChecked = 0;
    for (const project of projects) {
      const all = chatsOf(project);
      const served = world.competitors(project, RANGE) as {
        active_competitors: Array<{
          name: string;
          is_own_brand: boolean;
          competitor_id: string;
          metrics: Record<string, number | null>;
        }>;
      };
      for (const c of served.active_competitors) {
        if (c.competitor_id === '00000000-0000-0000-0000-000000000000') {
          expect(c.metrics.visibility).toBe(0);
          continue;
        }
        const hits = all.filter((chat) => chat.brands_mentioned?.[c.name]);
        expect(c.metrics.mention_count).toBe(hits.length);
        expect(c.metrics.visibility).toBe(round2((hits.length / all.length) * 100));
        const p = mean(hits.map((h) => h.brands_mentioned?.[c.name]?.position as number));
        const s = mean(hits.map((h) => h.sentiment_by_brands?.[c.name] as number));
        expect(c.metrics.position).toBe(p === null ? null : round2(p));
        expect(c.metrics.sentiment).toBe(s === null ? null : round2(s));
        if (c.is_own_brand) {
          ownChecked++;
          expect(hits.length).toBe(all.filter((chat) => chat.mentioned).length);
        }
      }
    }
    expect(ownChecked).toBe(1);
  });

  test('visibility trend: per day, providers averaged', () => {
    for (const project of projects) {
      const all = chatsOf(project);
      const trend = world.visibilityTrend(project, RANGE) as {
        dates: string[];
        series: Array<{
          name: string;
          is_own_brand: boolean;
          visibility: Array<number | null>;
          position: Array<number | null>;
        }>;
      };
      expect(trend.series.filter((s) => s.is_own_brand)).toHaveLength(1);
      for (const series of trend.series) {
        trend.dates.forEach((date, i) => {
          const perProvider = new Map<string, ChatItem[]>();
          for (const c of all)
            if (dayOf(c.date) === date) perProvider.set(c.platform, [...(perProvider.get(c.platform) ?? []), c]);
          const hit = (c: ChatItem) => (series.is_own_brand ? c.mentioned : Boolean(c.brands_mentioned?.[series.name]));
          const pos = (c: ChatItem) =>
            series.is_own_brand ? (c.position as number) : (c.brands_mentioned?.[series.name]?.position as number);
          const vis = mean([...perProvider.values()].map((cs) => (cs.filter(hit).length / cs.length) * 100));
          const position = mean(
            [...perProvider.values()].map((cs) => mean(cs.filter(hit).map(pos))).filter((v): v is number => v !== null),
          );
          expect(series.visibility[i]).toBe(vis === null ? null : round2(vis));
          expect(series.position[i]).toBe(position === null ? null : round2(position));
        });
      }
    }
  });

  test('sources reference counts and the opportunities rule', () => {
    for (const project of projects) {
      const all = chatsOf(project);
      const cited = new Map<string, number>();
      const withoutBrand = new Map<string, number>();
      for (const c of all) {
        for (const r of c.references) {
          const domain = new URL(r.link).hostname.replace(/^(www\.|en\.)/, '');
          cited.set(domain, (cited.get(domain) ?? 0) + 1);
          if (!c.mentioned) withoutBrand.set(domain, (withoutBrand.get(domain) ?? 0) + 1);
        }
      }
      const sources = world.sources(project, RANGE) as Array<{ domain: string; reference_count: number }>;
      expect(new Map(sources.map((s) => [s.domain, s.reference_count]))).toEqual(cited);
      const own = new URL(project.website_url ?? '').hostname.replace(/^www\./, '');
      const expected = [...withoutBrand.entries()].filter(([d, n]) => n >= 3 && d !== own);
      const analytics = world.sourcesAnalytics(project, RANGE) as {
        opportunities: Array<{ domain: string; citation_count: number }>;
      };
      expect(expected.length).toBeGreaterThan(0);
      expect(new Map(analytics.opportunities.map((o) => [o.domain, o.citation_count]))).toEqual(new Map(expected));
    }
  });
});
