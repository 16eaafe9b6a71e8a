/** What the bootstrap pipeline generates for a new brand: topics, prompts with intents, detected competitors. */
import type { BootstrapResult } from './api.js';
import { marketBrands } from './catalog.js';
import { industryOfBrand, industryPrompts } from './demo-catalog.js';
import { hashParts } from './hash.js';
import { domainOf } from './names.js';
import type { Intent } from './types.js';

/** A full bootstrap generates 5 prompts (the spec: about 15 credits for 5 prompts x 3 providers). */
export const BOOTSTRAP_PROMPTS = 5;
const DETECTED = 3;

const GENERIC: ReadonlyArray<{ text: string; topic: number; intent: Intent }> = [
  { text: 'best alternatives to {b}', topic: 2, intent: 'commercial' },
  { text: 'is {b} worth it', topic: 1, intent: 'informational' },
  { text: '{b} reviews and complaints', topic: 1, intent: 'informational' },
  { text: 'how much does {b} cost', topic: 0, intent: 'transactional' },
  { text: '{b} official website', topic: 0, intent: 'navigational' },
  { text: 'top rated providers like {b}', topic: 2, intent: 'commercial' },
  { text: 'how does {b} compare to its competitors', topic: 2, intent: 'commercial' },
];

export function bootstrap(
  seed: number,
  brandName: string,
  brandUrl: string,
  _language: string | null,
  _location: string | null,
): BootstrapResult {
  const industry = industryOfBrand(brandName);
  const intents: Intent[] = ['informational', 'commercial', 'navigational', 'transactional'];
  let topics: Array<{ name: string }>;
  let prompts: BootstrapResult['prompts'];
  if (industry) {
    topics = industry.topics.map((t) => ({ name: t.name }));
    prompts = industryPrompts(industry)
      .slice(0, BOOTSTRAP_PROMPTS)
      .map((p, i) => ({
        content: p.content,
        topic_index: p.topic,
        intent: intents[hashParts(seed, brandName, 'intent', i) % 4] ?? 'informational',
      }));
  } else {
    topics = [{ name: `${brandName} products` }, { name: `${brandName} reviews` }, { name: 'Alternatives' }];
    const start = hashParts(seed, brandName.toLowerCase(), 'bootstrap') % GENERIC.length;
    prompts = Array.from({ length: BOOTSTRAP_PROMPTS }, (_, i) => {
      const g = GENERIC[(start + i) % GENERIC.length] ?? GENERIC[0];
      return {
        content: (g?.text ?? '{b}').replace('{b}', brandName),
        topic_index: g?.topic ?? 0,
        intent: g?.intent ?? 'informational',
      };
    });
  }
  const own = domainOf(brandUrl);
  const detected = marketBrands(seed, brandName, industry?.rivals ?? [])
    .filter((m) => m.domain !== own)
    .slice(0, DETECTED)
    .map((m) => ({ name: m.name, website: `https://${m.domain}` }));
  return { topics, prompts, detected_competitors: detected };
}
