/**
 * The project as the world sees it on one day: which brands exist in the market (and may be written into
 * answers), which are tracked (detected and ranked), the aliases in force, the citable domains and the completed
 * actions. Aliases, competitors and their activation apply to a day's answers when created on or before that UTC
 * day (and, for competitors, not deleted before it). Days with the same configuration share one context.
 */

import { DAY_MS } from '../../core/days.js';
import { type MarketBrand, marketBrands, SOURCE_DOMAINS } from './catalog.js';
import { industryOfBrand } from './demo-catalog.js';
import { Detector, type Term } from './detect.js';
import { hashParts } from './hash.js';
import { domainOf, nicknames } from './names.js';
import type { ActionConfig, CompetitorConfig, ProjectConfig } from './types.js';

/** Owner ids of market brands in the detector start here (tracked brands are 0..n-1). */
export const MARKET_OWNER = 1000;

export interface TrackedBrand {
  name: string;
  website: string;
  domain: string | null;
  /** Competitor id, or null for the own brand when it is not itself a competitor. */
  competitorId: string | null;
  isOwn: boolean;
}

/** A brand the generator may write into answers. */
export interface BrandSlot {
  name: string;
  key: string;
  kind: 'own' | 'competitor' | 'market';
  /** Index in `tracked`, or -1. */
  tracked: number;
  /** Index in `market`, or -1. */
  market: number;
  domainIdx: number;
}

export interface DomainEntry {
  domain: string;
  category: number;
  weight: number;
}

export interface DayContext {
  id: number;
  fingerprint: string;
  project: ProjectConfig;
  own: BrandSlot | null;
  ownNicknames: string[];
  slots: BrandSlot[];
  tracked: TrackedBrand[];
  /** Slot index of each tracked brand. */
  trackedSlot: number[];
  market: MarketBrand[];
  detector: Detector;
  domains: DomainEntry[];
  domainIndex: Map<string, number>;
  ownDomainIdx: number;
  actions: ActionConfig[];
}

function endOfDayMs(day: number): number {
  return (day + 1) * DAY_MS;
}

function isBefore(iso: string | null | undefined, ms: number): boolean {
  if (!iso) return true;
  const t = Date.parse(iso);
  return Number.isNaN(t) || t < ms;
}

/**
 * Competitors that shape the answers of `day`: created before the day began (its answers are collected from 00:00,
 * so a competitor added or detected during the day first appears in the next day's answers, as a prompt does), and
 * not deleted before its start. Served answers therefore never change after the fact.
 */
function competitorsInMarket(project: ProjectConfig, day: number): CompetitorConfig[] {
  return project.competitors.filter(
    (c) => isBefore(c.created_at, day * DAY_MS) && (c.deleted_at === null || Date.parse(c.deleted_at) >= day * DAY_MS),
  );
}

function isTracked(c: CompetitorConfig, day: number): boolean {
  return c.state === 'active' && isBefore(c.activated_at ?? c.created_at, endOfDayMs(day));
}

/** True when a competitor entry is the project's own brand (same website domain, or same name). */
export function isOwnBrandCompetitor(project: ProjectConfig, c: Pick<CompetitorConfig, 'name' | 'website'>): boolean {
  const own = domainOf(project.website_url);
  if (own !== null && domainOf(c.website) === own) return true;
  return project.brand_name !== null && c.name.trim().toLowerCase() === project.brand_name.trim().toLowerCase();
}

/** A cheap key of everything in the project configuration that shapes the answers of `day`. */
export function dayFingerprint(project: ProjectConfig, day: number): string {
  const end = endOfDayMs(day);
  const parts: string[] = [project.id, project.brand_name ?? '', project.website_url ?? ''];
  for (const a of project.aliases) if (isBefore(a.created_at, end)) parts.push(`a:${a.name}:${a.match_type}`);
  for (const c of competitorsInMarket(project, day)) {
    parts.push(`c:${c.id}:${c.name}:${c.website}:${isTracked(c, day) ? 1 : 0}`);
  }
  for (const a of project.actions) {
    if (a.status === 'completed' && a.completed_at) {
      parts.push(`x:${a.id}:${a.completed_at}:${a.expected_impact_min}:${a.expected_impact_max}`);
      for (const t of a.targets) parts.push(`t:${t.type}:${t.value}`);
    }
  }
  return parts.join('\u0001');
}

export function buildContext(
  seed: number,
  id: number,
  fingerprint: string,
  project: ProjectConfig,
  day: number,
): DayContext {
  const end = endOfDayMs(day);
  const domains: DomainEntry[] = SOURCE_DOMAINS.map((d) => ({ ...d }));
  const domainIndex = new Map<string, number>(domains.map((d, i) => [d.domain, i]));
  const addDomain = (domain: string | null): number => {
    if (domain === null) return -1;
    const known = domainIndex.get(domain);
    if (known !== undefined) return known;
    if (domains.length >= 250) return -1;
    domains.push({ domain, category: 0, weight: 2 });
    domainIndex.set(domain, domains.length - 1);
    return domains.length - 1;
  };

  const tracked: TrackedBrand[] = [];
  const trackedSlot: number[] = [];
  const slots: BrandSlot[] = [];
  const keys = new Set<string>();
  let own: BrandSlot | null = null;
  const ownDomain = domainOf(project.website_url);
  const ownDomainIdx = addDomain(ownDomain);
  const market = project.brand_name
    ? marketBrands(seed, project.brand_name, industryOfBrand(project.brand_name)?.rivals ?? [])
    : [];

  if (project.brand_name && project.brand_name.trim().length > 0) {
    const ownCompetitor = project.competitors.find(
      (c) => c.deleted_at === null && c.state === 'active' && isOwnBrandCompetitor(project, c),
    );
    tracked.push({
      name: project.brand_name,
      website: project.website_url ?? '',
      domain: ownDomain,
      competitorId: ownCompetitor?.id ?? null,
      isOwn: true,
    });
    own = {
      name: project.brand_name,
      key: project.brand_name.toLowerCase(),
      kind: 'own',
      tracked: 0,
      market: -1,
      domainIdx: ownDomainIdx,
    };
    trackedSlot.push(0);
    slots.push(own);
    keys.add(own.key);
  }
  for (const c of competitorsInMarket(project, day)) {
    const key = c.name.trim().toLowerCase();
    if (keys.has(key) || isOwnBrandCompetitor(project, c)) continue;
    keys.add(key);
    const slot: BrandSlot = {
      name: c.name,
      key,
      kind: 'competitor',
      tracked: -1,
      market: -1,
      domainIdx: addDomain(domainOf(c.website)),
    };
    if (isTracked(c, day)) {
      slot.tracked = tracked.length;
      tracked.push({ name: c.name, website: c.website, domain: domainOf(c.website), competitorId: c.id, isOwn: false });
      trackedSlot.push(slots.length);
    }
    slots.push(slot);
  }
  market.forEach((m, i) => {
    const key = m.name.toLowerCase();
    if (keys.has(key)) return;
    keys.add(key);
    slots.push({ name: m.name, key, kind: 'market', tracked: -1, market: i, domainIdx: addDomain(m.domain) });
  });

  const terms: Term[] = tracked.map((t, i) => ({ text: t.name, match: 'fuzzy', owner: i }));
  if (own) {
    for (const a of project.aliases) {
      if (isBefore(a.created_at, end)) terms.push({ text: a.name, match: a.match_type, owner: 0 });
    }
  }
  market.forEach((m, i) => {
    terms.push({ text: m.name, match: 'fuzzy', owner: MARKET_OWNER + i });
  });

  return {
    id,
    fingerprint,
    project,
    own,
    ownNicknames: project.brand_name ? nicknames(project.brand_name) : [],
    slots,
    tracked,
    trackedSlot,
    market,
    detector: new Detector(terms),
    domains,
    domainIndex,
    ownDomainIdx,
    actions: project.actions.filter((a) => a.status === 'completed' && a.completed_at !== null),
  };
}

/** A stable number for a brand, independent of ids (so renaming nothing keeps its strength). */
export function brandHash(seed: number, key: string): number {
  return hashParts(seed, 'brand', key);
}
