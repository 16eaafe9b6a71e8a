/**
 * The invented market the world draws from: third-party source domains with their categories and the syllables
 * of brand names the AI answers mention without the project tracking them.
 */
import { hashParts, rand01 } from './hash.js';

/** Source category ids of the spec: 0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other. */
export const CATEGORY_NAMES = ['corporate', 'editorial', 'institutional', 'reference', 'ugc', 'other'] as const;
export type CategoryName = (typeof CATEGORY_NAMES)[number];

export interface CatalogDomain {
  domain: string;
  category: number;
  /** Relative citation weight. */
  weight: number;
}

/** Third-party domains, shared by every project (brand websites are added per project, category 0). */
export const SOURCE_DOMAINS: readonly CatalogDomain[] = Object.freeze([
  { domain: 'thegearreport.com', category: 1, weight: 5 },
  { domain: 'buyerscompass.com', category: 1, weight: 4 },
  { domain: 'reviewlane.com', category: 1, weight: 4 },
  { domain: 'productpulse.net', category: 1, weight: 3 },
  { domain: 'insidermonthly.com', category: 1, weight: 3 },
  { domain: 'benchmarkweekly.com', category: 1, weight: 2 },
  { domain: 'smartchoice-guide.com', category: 1, weight: 3 },
  { domain: 'thetoolbox.review', category: 1, weight: 2 },
  { domain: 'marketwatchers.net', category: 1, weight: 2 },
  { domain: 'consumer-affairs.gov', category: 2, weight: 2 },
  { domain: 'tradestandards.org', category: 2, weight: 1 },
  { domain: 'stateu.edu', category: 2, weight: 1 },
  { domain: 'smallbiz-admin.gov', category: 2, weight: 1 },
  { domain: 'wikipedia.org', category: 3, weight: 5 },
  { domain: 'britannica.com', category: 3, weight: 1 },
  { domain: 'glossaryhub.org', category: 3, weight: 1 },
  { domain: 'reddit.com', category: 4, weight: 6 },
  { domain: 'quora.com', category: 4, weight: 3 },
  { domain: 'youtube.com', category: 4, weight: 4 },
  { domain: 'medium.com', category: 4, weight: 2 },
  { domain: 'trustpilot.com', category: 4, weight: 3 },
  { domain: 'stackexchange.com', category: 4, weight: 1 },
  { domain: 'linkedin.com', category: 5, weight: 2 },
  { domain: 'slideshare.net', category: 5, weight: 1 },
  { domain: 'archive.org', category: 5, weight: 1 },
  { domain: 'dealfinder.io', category: 5, weight: 1 },
]);

const PREFIXES = [
  'Bright',
  'North',
  'Blue',
  'Silver',
  'Ever',
  'True',
  'Clear',
  'Swift',
  'Summit',
  'Harbor',
  'Iron',
  'Maple',
  'Nova',
  'Pine',
  'Stone',
  'Vista',
  'Oak',
  'Atlas',
  'Lumen',
  'Peak',
  'Coral',
  'Amber',
];
const SUFFIXES = [
  'line',
  'stack',
  'wave',
  'field',
  'works',
  'point',
  'crest',
  'forge',
  'hub',
  'path',
  'bridge',
  'gate',
];

export interface MarketBrand {
  name: string;
  domain: string;
}

/**
 * Brands of the project's market that the project does not necessarily track: a fixed list per (seed, brand
 * name), so that bootstrap, the demo and later answers all see the same names.
 */
export function marketBrands(seed: number, brandName: string, extra: readonly MarketBrand[] = []): MarketBrand[] {
  const out: MarketBrand[] = [...extra];
  const own = brandName.toLowerCase();
  const seen = new Set(out.map((b) => b.name.toLowerCase()));
  seen.add(own);
  for (let i = 0; out.length < extra.length + 6 && i < 64; i++) {
    const h = hashParts(seed, 'market', own, i);
    const name = `${PREFIXES[h % PREFIXES.length]}${SUFFIXES[(h >>> 8) % SUFFIXES.length]}`;
    const key = name.toLowerCase();
    if (seen.has(key) || own.includes(key) || key.includes(own)) continue;
    seen.add(key);
    const tld = rand01(seed, 'market-tld', key) < 0.7 ? 'com' : 'io';
    out.push({ name, domain: `${key}.${tld}` });
  }
  return out;
}

/** The favicon service URLs the world gives brands and domains. */
export function iconUrls(domain: string): string[] {
  return [`https://www.google.com/s2/favicons?domain=${domain}&sz=64`, `https://${domain}/favicon.ico`];
}
