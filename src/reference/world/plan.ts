/**
 * What the world fixes once per (context, prompt): the topic its drift follows, the domains its answers may cite
 * (with weights), and the completed actions that target it.
 */
import type { DayContext } from './context.js';
import { hashParts, rand01 } from './hash.js';
import { domainOf, slugify } from './names.js';
import { type ActionEffect, effectsForPrompt, promptOffset } from './strength.js';
import type { PromptConfig } from './types.js';

export interface PromptPlan {
  /** Hash of (seed, prompt id): the root of every draw of the prompt's answers. */
  promptHash: number;
  /** Offset of the own brand's strength on this prompt. */
  ownOffset: number;
  topicKey: string;
  topicName: string;
  slug: string;
  /** Citable domains (context domain indices) and their weights. */
  pool: Array<{ idx: number; weight: number }>;
  effects: ActionEffect[];
}

const CATALOG_PICKS = 6;
const BRAND_PICKS = 3;

export function buildPlan(seed: number, ctx: DayContext, prompt: PromptConfig): PromptPlan {
  const pool: Array<{ idx: number; weight: number }> = [];
  const used = new Set<number>();
  const add = (idx: number, weight: number) => {
    if (idx < 0 || used.has(idx)) return;
    used.add(idx);
    pool.push({ idx, weight });
  };
  if (ctx.ownDomainIdx >= 0) add(ctx.ownDomainIdx, 3);
  const brandDomains = ctx.slots.filter((s) => s.kind !== 'own' && s.domainIdx >= 0).map((s) => s.domainIdx);
  for (let i = 0; i < BRAND_PICKS && brandDomains.length > 0; i++) {
    add(brandDomains[hashParts(seed, 'pool-brand', prompt.id, i) % brandDomains.length] ?? -1, 2);
  }
  const catalogCount = ctx.domains.filter((d) => d.category !== 0).length;
  for (let i = 0; used.size < CATALOG_PICKS + BRAND_PICKS + 1 && i < 40; i++) {
    // Weighted draw over the third-party catalog: popular sites are in more prompts' pools.
    let u =
      rand01(seed, 'pool-catalog', prompt.id, i) *
      ctx.domains.reduce((s, d) => s + (d.category === 0 ? 0 : d.weight), 0);
    for (let j = 0; j < catalogCount; j++) {
      const d = ctx.domains[j];
      if (!d || d.category === 0) continue;
      u -= d.weight;
      if (u <= 0) {
        add(j, d.weight);
        break;
      }
    }
  }
  const topic = ctx.project.topics.find((t) => t.id === prompt.topic_id);
  const domains = new Set(pool.map((p) => ctx.domains[p.idx]?.domain ?? ''));
  return {
    promptHash: hashParts(seed, 'answer', prompt.id),
    ownOffset: promptOffset(seed, prompt.id),
    topicKey: topic?.id ?? 'no-topic',
    topicName: topic?.name ?? 'this topic',
    slug: slugify(prompt.content) || 'overview',
    pool,
    effects: [
      ...effectsForPrompt(seed, ctx.actions, prompt.content, domains, domainOf),
      ...(ctx.project.own_shifts ?? []).map((s) => ({
        actionId: `shift:${s.at}`,
        startMs: Date.parse(s.at),
        impact: s.impact_pp / 100,
      })),
    ],
  };
}
