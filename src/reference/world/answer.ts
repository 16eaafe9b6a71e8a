/**
 * One AI answer, generated from (seed, the day's context, prompt, provider, day) alone: which brands the answer
 * writes (each with probability = its strength that day), in which order and tone, which pages it cites, its text,
 * and what detection then finds in that text. The facts come from detection, never from the generator's intent.
 */

import { DAY_MS } from '../../core/days.js';
import { type BrandSlot, type DayContext, MARKET_OWNER } from './context.js';
import type { Detection } from './detect.js';
import type { DecodedFacts } from './facts.js';
import { hashString, mix32, prng } from './hash.js';
import type { PromptPlan } from './plan.js';
import { type ActionEffect, actionBoost, baseSentiment, baseStrength, driftModel, evalDrift } from './strength.js';
import { type BrandLine, renderParts } from './text.js';

/** Answers are collected between 00:00 and 06:00 UTC of their day. */
export const COLLECTION_WINDOW_MS = 6 * 3_600_000;
/** An answer writes at most this many brands (the strongest-scoring ones). */
export const MAX_BRANDS = 7;

export interface GeneratedAnswer {
  facts: DecodedFacts;
  /** The full text ('' when generated for facts only). */
  text: string;
  detections: Detection[];
}

/** Per (context, topic): the drift models of every brand slot for every provider, built on first use. */
export interface SlotModel {
  keyHash: number;
  base: number[];
  mention: Float64Array[];
  tone: Float64Array[];
  sentiment: number;
}
const models = new WeakMap<DayContext, Map<string, SlotModel[]>>();

export function slotModels(seed: number, ctx: DayContext, topicKey: string): SlotModel[] {
  let byTopic = models.get(ctx);
  if (!byTopic) {
    byTopic = new Map();
    models.set(ctx, byTopic);
  }
  const known = byTopic.get(topicKey);
  if (known) return known;
  const list = ctx.slots.map((slot) => {
    const base: number[] = [];
    const mention: Float64Array[] = [];
    const tone: Float64Array[] = [];
    for (let p = 0; p < 3; p++) {
      base.push(baseStrength(seed, slot.kind, slot.key, p));
      mention.push(driftModel(seed, slot.key, p, topicKey));
      tone.push(driftModel(seed, `${slot.key}#tone`, p, topicKey));
    }
    return { keyHash: hashString(slot.key), base, mention, tone, sentiment: baseSentiment(seed, slot.key) };
  });
  byTopic.set(topicKey, list);
  return list;
}

/** Upper ends of the spelling draw for each of ownSpellings' forms (the draw is uniform on [0, 1)). */
export const OWN_SPELLING_CUTS: readonly number[] = [0.7, 0.76, 0.82, 0.92, 0.97, 1];

/**
 * The six ways an answer writes the own brand, in the order of OWN_SPELLING_CUTS: as named, lower case, without
 * spaces (upper case for a one-word name), by its first word, by its initials, by its lower-case initials (the
 * nickname forms fall back to the name when it has none).
 */
export function ownSpellings(name: string, nick: readonly string[]): string[] {
  const [first, initials] = nick;
  return [
    name,
    name.toLowerCase(),
    name.includes(' ') ? name.replace(/\s+/g, '') : name.toUpperCase(),
    first ?? name,
    initials ?? name,
    initials ? initials.toLowerCase() : name,
  ];
}

function ownSurface(name: string, nick: readonly string[], u: number): string {
  const forms = ownSpellings(name, nick);
  const at = OWN_SPELLING_CUTS.findIndex((cut) => u < cut);
  return forms[at < 0 ? forms.length - 1 : at] ?? name;
}

/** Share of a competitor's mentions written in lower case (the rest as named). */
export const COMPETITOR_LOWERCASE_SHARE = 0.05;

/**
 * The probability that an answer at instant `ms` writes the brand of `slot` (its strength, clamped 0.02..0.97);
 * for the own brand with the action `effects` given (the prompt's, by default).
 */
export function mentionStrength(
  model: SlotModel,
  kind: BrandSlot['kind'],
  plan: PromptPlan,
  provider: number,
  ms: number,
  effects: readonly ActionEffect[] = plan.effects,
): number {
  let p = (model.base[provider] ?? 0) + evalDrift(model.mention[provider] ?? new Float64Array(9), ms / DAY_MS);
  if (kind === 'own') p += plan.ownOffset + actionBoost(effects, ms);
  return Math.min(0.97, Math.max(0.02, p));
}

export function generateAnswer(
  seed: number,
  lateFraction: number,
  ctx: DayContext,
  plan: PromptPlan,
  provider: number,
  day: number,
  withText = true,
  bootstrap?: { startMs: number; endMs: number },
): GeneratedAnswer {
  const cell = mix32(plan.promptHash ^ mix32(day * 4 + provider + 0x632be5ab));
  const answerHash = mix32(cell ^ 0x2545f491);
  const r = prng(answerHash);
  // A bootstrap's initial answer is collected while the bootstrap runs (offsets in whole seconds), never late.
  const late = bootstrap ? false : mix32(cell ^ 0x5bd1e995) / 4294967296 < lateFraction;
  const offsetMs = bootstrap
    ? bootstrap.startMs + Math.floor(r() * ((bootstrap.endMs - bootstrap.startMs) / 1000 + 1)) * 1000
    : Math.floor(r() * (COLLECTION_WINDOW_MS / 1000)) * 1000;
  const ms = day * DAY_MS + offsetMs;
  const tDay = ms / DAY_MS;

  const slotList = slotModels(seed, ctx, plan.topicKey);
  const chosen: Array<{ slot: number; score: number; line: BrandLine }> = [];
  ctx.slots.forEach((slot, i) => {
    const model = slotList[i];
    if (!model) return;
    const h1 = mix32(answerHash ^ model.keyHash);
    const h2 = mix32(h1 + 0x9e3779b9);
    const u = h1 / 4294967296;
    const order = (h2 & 0xffff) / 65536;
    const tone = (h2 >>> 16) / 65536;
    const spelling = mix32(h2 ^ 0x85ebca6b) / 4294967296;
    const p = mentionStrength(model, slot.kind, plan, provider, ms);
    if (u >= p) return;
    const sentiment = Math.round(
      model.sentiment + 60 * evalDrift(model.tone[provider] ?? new Float64Array(9), tDay) + (tone - 0.5) * 24,
    );
    const surface =
      slot.kind === 'own'
        ? ownSurface(slot.name, ctx.ownNicknames, spelling)
        : spelling < COMPETITOR_LOWERCASE_SHARE
          ? slot.name.toLowerCase()
          : slot.name;
    chosen.push({
      slot: i,
      score: p + 0.5 * order,
      line: { surface, sentiment: Math.min(98, Math.max(3, sentiment)) },
    });
  });
  chosen.sort((a, b) => b.score - a.score);
  chosen.length = Math.min(chosen.length, MAX_BRANDS);

  const ownChosen = chosen.some((c) => ctx.slots[c.slot]?.kind === 'own');
  const refCount = 2 + Math.floor(r() * 4);
  const refs: DecodedFacts['refs'] = [];
  const remaining = plan.pool.map((p) => ({
    ...p,
    weight: p.idx === ctx.ownDomainIdx && ownChosen ? p.weight * 3 : p.weight,
  }));
  for (let k = 0; k < refCount && remaining.length > 0; k++) {
    let u = r() * remaining.reduce((s, p) => s + p.weight, 0);
    let at = remaining.length - 1;
    for (let j = 0; j < remaining.length; j++) {
      u -= remaining[j]?.weight ?? 0;
      if (u <= 0) {
        at = j;
        break;
      }
    }
    const [taken] = remaining.splice(at, 1);
    if (taken) refs.push({ domain: taken.idx, variant: Math.floor(r() * 4) });
  }
  const markers = chosen.map((_, i) => (r() < 0.7 && refs.length > 0 ? (i % refs.length) + 1 : 0));
  const closing = r() < 0.45;
  const draws: number[] = [];
  for (let i = 0; i < 8; i++) draws.push(r());

  const { parts, separator } = renderParts({
    provider,
    topic: plan.topicName,
    brands: chosen.map((c) => c.line),
    markers,
    draws,
    closing,
  });
  const text = withText ? parts.join(separator) : '';
  const detections = ctx.detector.detectParts(parts, separator);
  const sentimentBySlot = new Map(chosen.map((c) => [c.slot, c.line.sentiment]));
  const tracked: DecodedFacts['tracked'] = [];
  const market: number[] = [];
  for (const d of detections) {
    if (d.owner >= MARKET_OWNER) market.push(d.owner - MARKET_OWNER);
    else {
      const slot = ctx.trackedSlot[d.owner] ?? -1;
      tracked.push({ idx: d.owner, count: d.count, sentiment: sentimentBySlot.get(slot) ?? 50 });
    }
  }
  return { facts: { late, offsetMs, tracked, market, refs }, text, detections };
}
