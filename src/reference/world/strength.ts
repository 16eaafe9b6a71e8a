/**
 * Brand strength: the probability that an answer mentions a brand. It drifts over time as a sum of three smooth
 * hashed sine waves (slow per brand, medium per brand x provider, fast per brand x topic), so any day is O(1) to
 * evaluate, and completed actions add a ramped boost to the own brand on the prompts they target.
 */
import { DAY_MS } from '../../core/days.js';
import { hashParts, rand01 } from './hash.js';
import type { ActionConfig, ActionTarget } from './types.js';

/** Days over which a completed action's effect ramps from 0 to its full impact. */
export const ACTION_RAMP_DAYS = 14;
/** Impact (percentage points) of a completed action that states none. */
export const DEFAULT_IMPACT: readonly [number, number] = [4, 10];

function waveInto(
  out: Float64Array,
  at: number,
  h: number,
  minPeriod: number,
  maxPeriod: number,
  amplitude: number,
): void {
  const period = minPeriod + ((maxPeriod - minPeriod) * (h & 0xffff)) / 65536;
  out[at] = (2 * Math.PI) / period;
  out[at + 1] = ((h >>> 16) / 65536) * 2 * Math.PI;
  out[at + 2] = amplitude * (0.6 + (0.4 * ((h >>> 8) & 0xff)) / 255);
}

/** The three waves of a brand's drift for one provider and topic: (angular speed, phase, amplitude) x 3. */
export function driftModel(seed: number, brandKey: string, provider: number, topicKey: string): Float64Array {
  const m = new Float64Array(9);
  waveInto(m, 0, hashParts(seed, 'slow', brandKey), 120, 240, 0.07);
  waveInto(m, 3, hashParts(seed, 'medium', brandKey, provider), 40, 90, 0.05);
  waveInto(m, 6, hashParts(seed, 'fast', brandKey, topicKey), 14, 30, 0.03);
  return m;
}

/** Drift (within about +-0.15) on a fractional day number. */
export function evalDrift(m: Float64Array, day: number): number {
  let sum = 0;
  for (let i = 0; i < 9; i += 3) sum += (m[i + 2] ?? 0) * Math.sin((m[i] ?? 0) * day + (m[i + 1] ?? 0));
  return sum;
}

/** Drift of a brand's strength on a (fractional) day. */
export function drift(seed: number, brandKey: string, provider: number, topicKey: string, day: number): number {
  return evalDrift(driftModel(seed, brandKey, provider, topicKey), day);
}

/** Base mention probability of a brand for one provider, before drift. */
export function baseStrength(
  seed: number,
  kind: 'own' | 'competitor' | 'market',
  brandKey: string,
  provider: number,
): number {
  const [lo, hi] = kind === 'own' ? [0.3, 0.6] : kind === 'competitor' ? [0.12, 0.45] : [0.05, 0.22];
  return lo + (hi - lo) * rand01(seed, 'base', brandKey) + 0.16 * (rand01(seed, 'provider', brandKey, provider) - 0.5);
}

/** Offset of the own brand's strength on one prompt (some prompts suit the brand better). */
export function promptOffset(seed: number, promptId: string): number {
  return 0.3 * (rand01(seed, 'prompt-offset', promptId) - 0.5);
}

/** Average sentiment (0-100) answers give a brand. */
export function baseSentiment(seed: number, brandKey: string): number {
  return 48 + 32 * rand01(seed, 'sentiment', brandKey);
}

export interface ActionEffect {
  actionId: string;
  startMs: number;
  /** Full effect, as a probability (0.08 = 8 percentage points). */
  impact: number;
}

/** The impact an action reaches, in percentage points, within its expected range. */
export function actionImpactPoints(seed: number, action: ActionConfig): number {
  const lo = action.expected_impact_min ?? action.expected_impact_max ?? DEFAULT_IMPACT[0];
  const hi = action.expected_impact_max ?? action.expected_impact_min ?? DEFAULT_IMPACT[1];
  const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
  return a + (b - a) * rand01(seed, 'impact', action.id);
}

function targetsPrompt(
  targets: readonly ActionTarget[],
  content: string,
  promptDomains: ReadonlySet<string>,
  domainOf: (v: string) => string | null,
): boolean {
  const specific = targets.filter((t) => t.type !== 'page_type');
  if (specific.length === 0) return true;
  const text = content.toLowerCase();
  return specific.some((t) => {
    if (t.type === 'keyword') return t.value.trim().length > 0 && text.includes(t.value.trim().toLowerCase());
    const domain = domainOf(t.value);
    return domain !== null && promptDomains.has(domain);
  });
}

/** The completed actions whose targets reach a prompt, as effects. */
export function effectsForPrompt(
  seed: number,
  actions: readonly ActionConfig[],
  content: string,
  promptDomains: ReadonlySet<string>,
  domainOf: (v: string) => string | null,
): ActionEffect[] {
  const out: ActionEffect[] = [];
  for (const a of actions) {
    if (a.status !== 'completed' || !a.completed_at) continue;
    if (!targetsPrompt(a.targets, content, promptDomains, domainOf)) continue;
    out.push({ actionId: a.id, startMs: Date.parse(a.completed_at), impact: actionImpactPoints(seed, a) / 100 });
  }
  return out;
}

/** Boost at instant `ms`: each effect ramps smoothly from 0 at completion to its impact after ACTION_RAMP_DAYS. */
export function actionBoost(effects: readonly ActionEffect[], ms: number): number {
  let boost = 0;
  for (const e of effects) {
    const x = (ms - e.startMs) / (ACTION_RAMP_DAYS * DAY_MS);
    if (x <= 0) continue;
    const r = x >= 1 ? 1 : x * x * (3 - 2 * x);
    boost += e.impact * r;
  }
  return boost;
}
