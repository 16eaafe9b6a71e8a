/** Source domains cited by a project's answers: the list, the analytics, and one domain's detail. */

import { DAY_MS, dayFromNumber } from '../../../core/days.js';
import { CATEGORY_NAMES } from '../catalog.js';
import type { Engine } from '../engine.js';
import { uuidFrom } from '../hash.js';
import { bareDomain, domainOf } from '../names.js';
import { resolveRef } from '../refs.js';
import type { ProjectConfig, WorldQuery } from '../types.js';
import { ownPosition } from './chats.js';
import { getOrInsert, paginate, percent, round2 } from './common.js';

/** Citations of one domain needed, in answers without the own brand, to be an opportunity. */
export const OPPORTUNITY_MIN_CITATIONS = 3;

export interface SourceDomain {
  source_id: string;
  domain: string;
  category: number;
  reference_count: number;
}

function categoryName(category: number): string {
  return CATEGORY_NAMES[category] ?? 'other';
}

interface DomainTally {
  category: number;
  count: number;
  withoutBrand: number;
  byDay: Map<number, number>;
}

function tallyDomains(engine: Engine, project: ProjectConfig, query: WorldQuery) {
  const domains = new Map<string, DomainTally>();
  const perDay = new Map<number, number>();
  let total = 0;
  engine.scan(project, query, ({ ctx, facts, day }) => {
    const mentioned = ownPosition(ctx, facts) > 0;
    for (const r of facts.refs) {
      const entry = ctx.domains[r.domain];
      if (!entry) continue;
      const t = getOrInsert(domains, entry.domain, () => ({
        category: entry.category,
        count: 0,
        withoutBrand: 0,
        byDay: new Map(),
      }));
      t.count++;
      if (!mentioned) t.withoutBrand++;
      t.byDay.set(day, (t.byDay.get(day) ?? 0) + 1);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
      total++;
    }
  });
  return { domains, perDay, total };
}

function ranked(engine: Engine, project: ProjectConfig, domains: Map<string, DomainTally>): SourceDomain[] {
  return [...domains.entries()]
    .map(([domain, t]) => ({
      source_id: uuidFrom(engine.seed, project.id, 'source', domain),
      domain,
      category: t.category,
      reference_count: t.count,
    }))
    .sort((a, b) => b.reference_count - a.reference_count || a.domain.localeCompare(b.domain));
}

export function sources(engine: Engine, project: ProjectConfig, query: WorldQuery): SourceDomain[] {
  return ranked(engine, project, tallyDomains(engine, project, query).domains);
}

export function sourcesAnalytics(engine: Engine, project: ProjectConfig, query: WorldQuery) {
  const { domains, perDay, total } = tallyDomains(engine, project, query);
  const list = ranked(engine, project, domains);
  const byCategory = CATEGORY_NAMES.map(() => 0);
  for (const t of domains.values()) byCategory[t.category] = (byCategory[t.category] ?? 0) + t.count;
  const category_breakdown = Object.fromEntries(
    CATEGORY_NAMES.map((name, i) => [name, round2(percent(byCategory[i] ?? 0, total) ?? 0)]),
  ) as Record<(typeof CATEGORY_NAMES)[number], number>;
  const { from, to } = engine.days(query);
  const days: number[] = [];
  for (let d = from; d <= to; d++) days.push(d);
  const own = domainOf(project.website_url);
  return {
    stats: { total_sources: domains.size, total_citations: total },
    category_breakdown,
    performance_chart: {
      dates: days.map(dayFromNumber),
      series: list.slice(0, 10).map((s) => ({
        domain: s.domain,
        values: days.map((d) => round2(percent(domains.get(s.domain)?.byDay.get(d) ?? 0, perDay.get(d) ?? 0) ?? 0)),
      })),
    },
    top_domains: list.slice(0, 20),
    opportunities: [...domains.entries()]
      .filter(([domain, t]) => domain !== own && t.withoutBrand >= OPPORTUNITY_MIN_CITATIONS)
      .sort((a, b) => b[1].withoutBrand - a[1].withoutBrand || a[0].localeCompare(b[0]))
      .map(([domain, t]) => ({
        domain,
        citation_count: t.withoutBrand,
        category: t.category,
        category_name: categoryName(t.category),
      })),
  };
}

/** Detail of one source domain (item shapes decided; they match SourceDetailServed in src/api). */
export function sourceDetail(
  engine: Engine,
  project: ProjectConfig,
  domain: string,
  query: WorldQuery,
  page: number,
  pageSize: number,
) {
  const wanted = bareDomain(domain);
  let category: number | null = null;
  let citations = 0;
  let allCitations = 0;
  let chats = 0;
  let mentionedChats = 0;
  let first: number | null = null;
  let last: number | null = null;
  const urls = new Map<string, { url: string; title: string; citation_count: number; first: number; last: number }>();
  const prompts = new Map<
    string,
    { prompt_id: string; content: string; citation_count: number; mentioned_count: number }
  >();
  engine.scan(project, query, ({ ctx, facts, prompt, day }) => {
    allCitations += facts.refs.length;
    const idx = ctx.domainIndex.get(wanted);
    if (idx === undefined) return;
    category = ctx.domains[idx]?.category ?? 5;
    const hits = facts.refs.filter((r) => r.domain === idx);
    if (hits.length === 0) return;
    const at = day * DAY_MS + facts.offsetMs;
    const mentioned = ownPosition(ctx, facts) > 0;
    citations += hits.length;
    chats++;
    if (mentioned) mentionedChats++;
    first = first === null ? at : Math.min(first, at);
    last = last === null ? at : Math.max(last, at);
    const plan = engine.plan(ctx, prompt);
    for (const h of hits) {
      const ref = resolveRef(ctx, plan, h);
      const u = urls.get(ref.url) ?? { url: ref.url, title: ref.title, citation_count: 0, first: at, last: at };
      u.citation_count++;
      u.first = Math.min(u.first, at);
      u.last = Math.max(u.last, at);
      urls.set(ref.url, u);
    }
    const p = prompts.get(prompt.id) ?? {
      prompt_id: prompt.id,
      content: prompt.content,
      citation_count: 0,
      mentioned_count: 0,
    };
    p.citation_count += hits.length;
    if (mentioned) p.mentioned_count++;
    prompts.set(prompt.id, p);
  });
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const resolvedCategory: number = category ?? (wanted === domainOf(project.website_url) ? 0 : 5);
  return {
    stats: {
      domain: wanted,
      category: resolvedCategory,
      category_name: categoryName(resolvedCategory),
      total_citations: citations,
      total_urls: urls.size,
      total_prompts: prompts.size,
      citation_share: round2(percent(citations, allCitations) ?? 0),
      brand_mentioned_rate: round2(percent(mentionedChats, chats) ?? 0),
      total_chats: chats,
      first_seen: iso(first),
      last_seen: iso(last),
    },
    urls: paginate(
      [...urls.values()]
        .sort((a, b) => b.citation_count - a.citation_count || a.url.localeCompare(b.url))
        .map((u) => ({
          url: u.url,
          title: u.title,
          citation_count: u.citation_count,
          first_seen: iso(u.first),
          last_seen: iso(u.last),
        })),
      page,
      pageSize,
    ),
    prompts: paginate(
      [...prompts.values()].sort(
        (a, b) => b.citation_count - a.citation_count || a.prompt_id.localeCompare(b.prompt_id),
      ),
      page,
      pageSize,
    ),
  };
}
