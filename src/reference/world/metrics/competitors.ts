/** The competitor list with metrics, the per-prompt overview, and the detection of untracked brands. */

import { dayFromNumber, dayOfInstant } from '../../../core/days.js';
import { isOwnBrandCompetitor } from '../context.js';
import type { Engine } from '../engine.js';
import { typeAt } from '../engine.js';
import { hashParts } from '../hash.js';
import { domainOf } from '../names.js';
import type { ProjectConfig, WorldQuery } from '../types.js';
import { activeCompetitors, competitorIdentity, tallyBrands } from './brands.js';
import { ownPosition } from './chats.js';
import { brandIcons, Mean, percent, period, round2 } from './common.js';

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export function competitors(engine: Engine, project: ProjectConfig, query: WorldQuery) {
  const tallies = tallyBrands(engine, project, query);
  const metricsOf = (key: string) => {
    const t = tallies.brands.get(key);
    const visibility = percent(t?.mentions ?? 0, tallies.answers);
    const position = t?.position.value() ?? null;
    const sentiment = t?.sentiment.value() ?? null;
    return {
      visibility: visibility === null ? null : round2(visibility),
      sentiment: sentiment === null ? null : round2(sentiment),
      position: position === null ? null : round2(position),
      mention_count: t?.mentions ?? 0,
      days_with_data: tallies.days.size,
      period: period(query),
    };
  };
  const list = activeCompetitors(project).map((c) => {
    const own = isOwnBrandCompetitor(project, c);
    return {
      competitor_id: c.id,
      project_id: project.id,
      name: c.name,
      website: c.website,
      ...brandIcons(domainOf(c.website)),
      state: 'active' as const,
      is_own_brand: own,
      metrics: metricsOf(competitorIdentity(project, c)),
    };
  });
  if (project.brand_name && !list.some((c) => c.is_own_brand)) {
    // The spec: the own brand, when it is not a competitor, is injected with the all-zero id and zeroed metrics.
    list.unshift({
      competitor_id: NIL_UUID,
      project_id: project.id,
      name: project.brand_name,
      website: project.website_url ?? '',
      ...brandIcons(domainOf(project.website_url)),
      state: 'active',
      is_own_brand: true,
      metrics: { visibility: 0, sentiment: 0, position: 0, mention_count: 0, days_with_data: 0, period: period(query) },
    });
  }
  return { active_competitors: list, total_active: list.length };
}

/** Estimated monthly search demand of a prompt (the overview's `volume`): fixed per prompt text. */
export function estimatedDemand(seed: number, content: string): number {
  const h = hashParts(seed, 'demand', content.trim().toLowerCase());
  return 10 * Math.round((20 + (h % 10_000) ** 1.1 / 4) / 10);
}

export function overview(
  engine: Engine,
  project: ProjectConfig,
  query: WorldQuery,
  promptType: 'active' | 'suggested',
) {
  const prompts = project.prompts.filter((p) => typeAt(p, query.now) === promptType);
  const topics = new Map(project.topics.map((t) => [t.id, t.name]));
  interface Acc {
    answers: number;
    mentioned: number;
    citingOwn: number;
    position: Mean;
    sentiment: Mean;
    rivals: Map<string, { name: string; website: string; count: number }>;
  }
  const accs = new Map<string, Acc>(
    prompts.map((p) => [
      p.id,
      { answers: 0, mentioned: 0, citingOwn: 0, position: new Mean(), sentiment: new Mean(), rivals: new Map() },
    ]),
  );
  engine.scan(
    project,
    query,
    ({ ctx, facts, prompt }) => {
      const acc = accs.get(prompt.id);
      if (!acc) return;
      acc.answers++;
      if (ctx.ownDomainIdx >= 0 && facts.refs.some((r) => r.domain === ctx.ownDomainIdx)) acc.citingOwn++;
      const pos = ownPosition(ctx, facts);
      if (pos > 0) {
        acc.mentioned++;
        acc.position.add(pos);
        acc.sentiment.add(facts.tracked[pos - 1]?.sentiment ?? 50);
      }
      for (const t of facts.tracked) {
        const brand = ctx.tracked[t.idx];
        if (!brand || brand.isOwn || !brand.competitorId) continue;
        const r = acc.rivals.get(brand.competitorId) ?? { name: brand.name, website: brand.website, count: 0 };
        r.count++;
        acc.rivals.set(brand.competitorId, r);
      }
    },
    prompts,
  );
  const items = prompts.map((prompt) => {
    const acc = accs.get(prompt.id) as Acc;
    const cvr = percent(acc.citingOwn, acc.answers);
    return {
      prompt_id: prompt.id,
      content: prompt.content,
      prompt_type: promptType,
      created_at: prompt.created_at,
      topic_id: prompt.topic_id,
      topic_name: prompt.topic_id ? (topics.get(prompt.topic_id) ?? null) : null,
      visibility: round2(percent(acc.mentioned, acc.answers) ?? 0),
      sentiment: round2(acc.sentiment.value() ?? 0),
      position: round2(acc.position.value() ?? 0),
      volume: estimatedDemand(engine.seed, prompt.content),
      intent: prompt.intent,
      cvr: cvr === null ? null : round2(cvr),
      competitors_mentioned: [...acc.rivals.entries()]
        .sort((a, b) => b[1].count - a[1].count || a[1].name.localeCompare(b[1].name))
        .map(([id, r]) => {
          const icons = brandIcons(domainOf(r.website));
          return {
            competitor_id: id,
            name: r.name,
            mention_count: r.count,
            icon_url: icons.icon_url,
            icon_urls: icons.icon_urls,
          };
        }),
    };
  });
  return { items };
}

/** Days of answers detectCompetitors looks at. */
export const DETECTION_DAYS = 7;

/** Market brands detected in the last DETECTION_DAYS days of answers that the project does not know yet. */
export function detectCompetitors(engine: Engine, project: ProjectConfig, now: number) {
  const today = dayOfInstant(now);
  const known = new Set<string>();
  const knownDomains = new Set<string>();
  for (const c of project.competitors) {
    known.add(c.name.trim().toLowerCase());
    const d = domainOf(c.website);
    if (d) knownDomains.add(d);
  }
  if (project.brand_name) known.add(project.brand_name.trim().toLowerCase());
  const counts = new Map<string, { name: string; domain: string; count: number }>();
  engine.scan(
    project,
    { range: { from: dayFromNumber(today - DETECTION_DAYS + 1), to: dayFromNumber(today) }, now },
    ({ ctx, facts }) => {
      for (const m of facts.market) {
        const brand = ctx.market[m];
        if (!brand || known.has(brand.name.toLowerCase()) || knownDomains.has(brand.domain)) continue;
        const entry = counts.get(brand.name) ?? { name: brand.name, domain: brand.domain, count: 0 };
        entry.count++;
        counts.set(brand.name, entry);
      }
    },
  );
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
    .map((e) => ({ name: e.name, website: `https://${e.domain}` }));
}
