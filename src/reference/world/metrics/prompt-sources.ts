/** The domains and URLs one prompt's answers cite. */

import { DAY_MS } from '../../../core/days.js';
import { CATEGORY_NAMES } from '../catalog.js';
import type { Engine } from '../engine.js';
import { resolveRef } from '../refs.js';
import type { ProjectConfig, PromptConfig, WorldQuery } from '../types.js';
import { identity } from './brands.js';
import { ownPosition } from './chats.js';
import { faviconUrls, percent, round2, trackedInfo } from './common.js';

type Info = ReturnType<typeof trackedInfo>;

/** Brands seen in answers, most frequent first. */
class BrandSet {
  private readonly seen = new Map<string, { info: Info; n: number }>();
  add(key: string, info: Info): void {
    const s = this.seen.get(key) ?? { info, n: 0 };
    s.n++;
    this.seen.set(key, s);
  }
  list(): Info[] {
    return [...this.seen.values()]
      .sort((a, b) => b.n - a.n || a.info.name.localeCompare(b.info.name))
      .map((s) => s.info);
  }
}

export function promptDomains(engine: Engine, project: ProjectConfig, prompt: PromptConfig, query: WorldQuery) {
  let answers = 0;
  const days = new Set<number>();
  const domains = new Map<
    string,
    { category: number; citations: number; answers: number; mentioned: boolean; brands: BrandSet }
  >();
  engine.scan(
    project,
    query,
    ({ ctx, facts, day }) => {
      answers++;
      days.add(day);
      const mentioned = ownPosition(ctx, facts) > 0;
      const cited = new Set<number>();
      for (const r of facts.refs) {
        const entry = ctx.domains[r.domain];
        if (!entry) continue;
        const d = domains.get(entry.domain) ?? {
          category: entry.category,
          citations: 0,
          answers: 0,
          mentioned: false,
          brands: new BrandSet(),
        };
        d.citations++;
        if (!cited.has(r.domain)) {
          cited.add(r.domain);
          d.answers++;
          for (const t of facts.tracked) {
            const brand = ctx.tracked[t.idx];
            if (brand) d.brands.add(identity(brand), trackedInfo(brand));
          }
        }
        if (mentioned) d.mentioned = true;
        domains.set(entry.domain, d);
      }
    },
    [prompt],
  );
  const items = [...domains.entries()]
    .map(([domain, d]) => ({
      domain,
      domain_type: d.category,
      citation_count: d.citations,
      avg_citations: round2(d.citations / Math.max(1, days.size)),
      used_percentage: round2(percent(d.answers, answers) ?? 0),
      mentioned: d.mentioned,
      brands_appeared: d.brands.list(),
      ...faviconUrls(domain),
    }))
    .sort((a, b) => b.citation_count - a.citation_count || a.domain.localeCompare(b.domain));
  return { items };
}

export function promptUrls(engine: Engine, project: ProjectConfig, prompt: PromptConfig, query: WorldQuery) {
  const urls = new Map<
    string,
    { title: string; domain: string; category: number; count: number; first: number; last: number; brands: BrandSet }
  >();
  engine.scan(
    project,
    query,
    ({ ctx, facts, day }) => {
      const at = day * DAY_MS + facts.offsetMs;
      const plan = engine.plan(ctx, prompt);
      for (const r of facts.refs) {
        const ref = resolveRef(ctx, plan, r);
        const u = urls.get(ref.url) ?? {
          title: ref.title,
          domain: ref.domain,
          category: ref.category,
          count: 0,
          first: at,
          last: at,
          brands: new BrandSet(),
        };
        u.count++;
        u.first = Math.min(u.first, at);
        u.last = Math.max(u.last, at);
        for (const t of facts.tracked) {
          const brand = ctx.tracked[t.idx];
          if (brand) u.brands.add(identity(brand), trackedInfo(brand));
        }
        urls.set(ref.url, u);
      }
    },
    [prompt],
  );
  const items = [...urls.entries()]
    .map(([url, u]) => ({
      url,
      title: u.title,
      domain: u.domain,
      url_type: u.category,
      url_type_name: CATEGORY_NAMES[u.category] ?? 'other',
      mentioned_count: u.count,
      brands_appear: u.brands.list(),
      first_seen: new Date(u.first).toISOString(),
      last_seen: new Date(u.last).toISOString(),
    }))
    .sort((a, b) => b.mentioned_count - a.mentioned_count || a.url.localeCompare(b.url));
  return { items };
}
