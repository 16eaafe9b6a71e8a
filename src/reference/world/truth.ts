/**
 * The world's ground truth, computed from its own model instead of from served answers: the probability that one
 * answer names (and detection finds) a tracked brand, the effect of each completed action on the own brand, and the
 * configuration changes that change what is measured. For checking estimators (docs/reference-server.md, "Truth").
 *
 * An answer cell (prompt, provider, day) names tracked brand b with probability
 *   P(written) × P(kept among the MAX_BRANDS best-scored | written) × P(the written spelling is detected),
 * where P(written) is the brand's clamped strength (answer.ts mentionStrength), the score of a written brand is
 * strength + 0.5 × U(0, 1) (so "kept" is an order statistic, integrated over the brand's own draw), and the
 * spellings are the generator's own with their shares, run through the day's detector. Strength is evaluated at
 * the middle of the collection window (03:00 UTC); drift and the action ramp move by < 0.01 points in 3 hours.
 */
import { DAY_MS, dayFromNumber, dayOfInstant } from '../../core/days.js';
import {
  COLLECTION_WINDOW_MS,
  COMPETITOR_LOWERCASE_SHARE,
  MAX_BRANDS,
  mentionStrength,
  OWN_SPELLING_CUTS,
  ownSpellings,
  slotModels,
} from './answer.js';
import { type DayContext, isOwnBrandCompetitor } from './context.js';
import { type Engine, isActiveOn, PUBLISH_OFFSET_MS } from './engine.js';
import { NIL_UUID } from './metrics/competitors.js';
import type { PromptPlan } from './plan.js';
import { PROVIDERS } from './providers.js';
import { ACTION_RAMP_DAYS, type ActionEffect, actionImpactPoints } from './strength.js';
import type { ActionConfig, Day, ProjectConfig, PromptConfig } from './types.js';

/** Days after completion before an action's after window starts (its ramp) and the window's length. */
export const AFTER_WINDOW = { startDays: ACTION_RAMP_DAYS, lengthDays: 28 } as const;
/** Points of the midpoint rule over a brand's own ordering draw. */
const ORDER_POINTS = 64;
const MID_COLLECTION_MS = COLLECTION_WINDOW_MS / 2;

/** The last day whose answers are all visible at `now` (late ones appear at D+1 06:00 UTC). */
export function lastCompleteDay(now: number): number {
  return Math.floor((now - PUBLISH_OFFSET_MS) / DAY_MS) - 1;
}

/** Per day context: for each tracked brand, the probability that its written spelling is detected. */
const detectionMemo = new WeakMap<DayContext, number[]>();

function detectionShares(ctx: DayContext): number[] {
  const known = detectionMemo.get(ctx);
  if (known) return known;
  const found = (surface: string, owner: number) =>
    ctx.detector.detectParts([`${surface} is one option.`], ' ').some((d) => d.owner === owner);
  const shares = ctx.tracked.map((brand, owner) => {
    if (brand.isOwn) {
      const forms = ownSpellings(brand.name, ctx.ownNicknames);
      return forms.reduce((sum, form, k) => {
        const share = (OWN_SPELLING_CUTS[k] ?? 1) - (k === 0 ? 0 : (OWN_SPELLING_CUTS[k - 1] ?? 0));
        return sum + (found(form, owner) ? share : 0);
      }, 0);
    }
    return (
      (found(brand.name, owner) ? 1 - COMPETITOR_LOWERCASE_SHARE : 0) +
      (found(brand.name.toLowerCase(), owner) ? COMPETITOR_LOWERCASE_SHARE : 0)
    );
  });
  detectionMemo.set(ctx, shares);
  return shares;
}

/**
 * P(slot `i` is among the MAX_BRANDS best-scored written brands | it is written). Scores are strength + 0.5 × U,
 * U independent per brand; the count of other written brands scoring higher is Poisson-binomial.
 */
function keptShare(p: Float64Array, i: number): number {
  if (p.length <= MAX_BRANDS) return 1;
  const pi = p[i] ?? 0;
  const dist = new Float64Array(MAX_BRANDS);
  let total = 0;
  for (let k = 0; k < ORDER_POINTS; k++) {
    const score = pi + (0.5 * (k + 0.5)) / ORDER_POINTS;
    dist.fill(0);
    dist[0] = 1;
    for (let j = 0; j < p.length; j++) {
      if (j === i) continue;
      const pj = p[j] ?? 0;
      const above = pj * Math.min(1, Math.max(0, 1 - (score - pj) / 0.5));
      if (above === 0) continue;
      for (let c = MAX_BRANDS - 1; c > 0; c--) dist[c] = (dist[c] ?? 0) * (1 - above) + (dist[c - 1] ?? 0) * above;
      dist[0] = (dist[0] ?? 0) * (1 - above);
    }
    // Kept when at most MAX_BRANDS − 1 others score higher: the mass still inside the truncated distribution.
    for (let c = 0; c < MAX_BRANDS; c++) total += dist[c] ?? 0;
  }
  return total / ORDER_POINTS;
}

/** Strength of every brand slot of one answer cell (own brand with `ownEffects`). */
function strengths(
  engine: Engine,
  ctx: DayContext,
  plan: PromptPlan,
  provider: number,
  ms: number,
  ownEffects: readonly ActionEffect[],
): Float64Array {
  const models = slotModels(engine.seed, ctx, plan.topicKey);
  const out = new Float64Array(ctx.slots.length);
  ctx.slots.forEach((slot, i) => {
    const model = models[i];
    out[i] = model ? mentionStrength(model, slot.kind, plan, provider, ms, ownEffects) : 0;
  });
  return out;
}

/** P(an answer of the cell names tracked brand `owner`), 0..1. */
function namedProbability(ctx: DayContext, p: Float64Array, owner: number): number {
  const slot = ctx.trackedSlot[owner];
  if (slot === undefined || slot < 0) return 0;
  return (p[slot] ?? 0) * keptShare(p, slot) * (detectionShares(ctx)[owner] ?? 0);
}

export interface TruthVisibilityRow {
  date: Day;
  provider: string;
  brand_id: string;
  brand_name: string;
  is_own_brand: boolean;
  /** Answers the day gets from active prompts (the denominator the expectation averages over). */
  answers: number;
  visibility_pct: number;
  /** The prompt the row is about, when asked per prompt (`byPrompt`); absent otherwise. */
  prompt_id?: string;
}

/**
 * Expected visibility per tracked brand × provider (and `all`) × day of [from, to] (day numbers); with `byPrompt`,
 * one row per active prompt as well (its answers are one a provider, three under `all`).
 */
export function truthVisibility(engine: Engine, project: ProjectConfig, from: number, to: number, byPrompt = false) {
  const rows: TruthVisibilityRow[] = [];
  for (let day = from; day <= to; day++) {
    const ctx = engine.context(project, day);
    const prompts = project.prompts.filter((p) => isActiveOn(p, day));
    if (prompts.length === 0) continue;
    const ms = day * DAY_MS + MID_COLLECTION_MS;
    const groups = byPrompt ? prompts.map((p) => [p]) : [prompts];
    for (const group of groups) {
      const sums = ctx.tracked.map(() => new Float64Array(PROVIDERS.length));
      for (const prompt of group) {
        const plan = engine.plan(ctx, prompt);
        PROVIDERS.forEach((_, provider) => {
          const p = strengths(engine, ctx, plan, provider, ms, plan.effects);
          ctx.tracked.forEach((_, owner) => {
            const row = sums[owner];
            if (row) row[provider] = (row[provider] ?? 0) + namedProbability(ctx, p, owner);
          });
        });
      }
      ctx.tracked.forEach((brand, owner) => {
        const row = sums[owner] ?? new Float64Array(PROVIDERS.length);
        const base = {
          date: dayFromNumber(day),
          brand_id: brand.competitorId ?? NIL_UUID,
          brand_name: brand.name,
          is_own_brand: brand.isOwn,
          ...(byPrompt && group[0] ? { prompt_id: group[0].id } : {}),
        };
        PROVIDERS.forEach((info, provider) => {
          rows.push({
            ...base,
            provider: info.id,
            answers: group.length,
            visibility_pct: round4((100 * (row[provider] ?? 0)) / group.length),
          });
        });
        const all = row.reduce((s, v) => s + v, 0);
        rows.push({
          ...base,
          provider: 'all',
          answers: group.length * PROVIDERS.length,
          visibility_pct: round4((100 * all) / (group.length * PROVIDERS.length)),
        });
      });
    }
  }
  return rows;
}

export interface TruthAction {
  action_id: string;
  project_id: string;
  completed_at: string;
  window_from: Day | null;
  window_to: Day | null;
  targeted_prompt_ids: string[];
  /** Full boost the world draws for the action (percentage points of strength, before clamping and detection). */
  impact_pp: number;
  expected_impact_min: number | null;
  expected_impact_max: number | null;
  /** Expected own-brand visibility over the targeted answers of the window with the action minus without it. */
  effect_pp: number | null;
  /** effect_pp against the expected range (null without a range or an effect). */
  verdict: 'below' | 'within' | 'above' | null;
  /** Targeted answer cells (prompt × provider × day) the effect averages over. */
  answers: number;
}

/** The effect of every completed action of the project whose completion is at or before `now`. */
export function truthActions(engine: Engine, project: ProjectConfig, now: number): TruthAction[] {
  const lastDay = lastCompleteDay(now);
  const out: TruthAction[] = [];
  for (const action of project.actions) {
    if (action.status !== 'completed' || !action.completed_at) continue;
    const completedMs = Date.parse(action.completed_at);
    if (!(completedMs <= now)) continue;
    const completedDay = dayOfInstant(completedMs);
    const from = completedDay + AFTER_WINDOW.startDays;
    const to = Math.min(completedDay + AFTER_WINDOW.startDays + AFTER_WINDOW.lengthDays - 1, lastDay);
    const measured = to >= from ? effectOver(engine, project, action, from, to) : null;
    const effect = measured && measured.answers > 0 ? round4(measured.sum / measured.answers) : null;
    out.push({
      action_id: action.id,
      project_id: project.id,
      completed_at: new Date(completedMs).toISOString(),
      window_from: to >= from ? dayFromNumber(from) : null,
      window_to: to >= from ? dayFromNumber(to) : null,
      targeted_prompt_ids: measured ? [...measured.prompts].sort() : [],
      impact_pp: round4(actionImpactPoints(engine.seed, action)),
      expected_impact_min: action.expected_impact_min,
      expected_impact_max: action.expected_impact_max,
      effect_pp: effect,
      verdict: verdictOf(effect, action),
      answers: measured?.answers ?? 0,
    });
  }
  return out;
}

function effectOver(engine: Engine, project: ProjectConfig, action: ActionConfig, from: number, to: number) {
  const prompts = new Set<string>();
  let sum = 0;
  let answers = 0;
  for (let day = from; day <= to; day++) {
    const ctx = engine.context(project, day);
    const ms = day * DAY_MS + MID_COLLECTION_MS;
    const own = ctx.tracked.findIndex((t) => t.isOwn);
    if (own < 0) continue;
    for (const prompt of project.prompts as PromptConfig[]) {
      if (!isActiveOn(prompt, day)) continue;
      const plan = engine.plan(ctx, prompt);
      if (!plan.effects.some((e) => e.actionId === action.id)) continue;
      prompts.add(prompt.id);
      const without = plan.effects.filter((e) => e.actionId !== action.id);
      for (let provider = 0; provider < PROVIDERS.length; provider++) {
        const withIt = namedProbability(ctx, strengths(engine, ctx, plan, provider, ms, plan.effects), own);
        const withoutIt = namedProbability(ctx, strengths(engine, ctx, plan, provider, ms, without), own);
        sum += 100 * (withIt - withoutIt);
        answers++;
      }
    }
  }
  return { prompts, sum, answers };
}

function verdictOf(effect: number | null, action: ActionConfig): TruthAction['verdict'] {
  const lo = action.expected_impact_min;
  const hi = action.expected_impact_max;
  if (effect === null || lo === null || hi === null) return null;
  if (effect < Math.min(lo, hi)) return 'below';
  if (effect > Math.max(lo, hi)) return 'above';
  return 'within';
}

export interface TruthEvent {
  project_id: string;
  /** First day whose answers the change affects. */
  date: Day;
  kind:
    | 'alias_added'
    | 'competitor_tracked'
    | 'competitor_dropped'
    | 'prompt_created'
    | 'prompt_activated'
    | 'prompt_deactivated';
  /** The brand whose measured figures change (competitor id, or the all-zero id for the own brand); null = all. */
  brand_id: string | null;
  subject: string;
}

/** The first day D with D 00:00 UTC at or after `ms` (a change during D applies from D + 1). */
function firstDayFrom(ms: number): number {
  return Math.ceil(ms / DAY_MS);
}

/**
 * Configuration changes that change what is measured, dated by the first day they affect. An alias and a
 * competitor's tracking apply from the UTC day they were made (context.ts); a prompt's answers start or stop at
 * the first midnight after its change; a deleted competitor leaves the answers the day after its deletion.
 */
export function truthEvents(project: ProjectConfig, now: number): TruthEvent[] {
  const today = dayOfInstant(now);
  const events: TruthEvent[] = [];
  const own = project.competitors.find(
    (c) => c.deleted_at === null && c.state === 'active' && isOwnBrandCompetitor(project, c),
  );
  const ownId = own?.id ?? NIL_UUID;
  const push = (e: Omit<TruthEvent, 'project_id' | 'date'>, day: number) => {
    if (day <= today) events.push({ project_id: project.id, date: dayFromNumber(day), ...e });
  };
  for (const a of project.aliases) {
    push(
      { kind: 'alias_added', brand_id: ownId, subject: `${a.name} (${a.match_type})` },
      dayOfInstant(Date.parse(a.created_at)),
    );
  }
  for (const c of project.competitors) {
    if (c.state === 'active') {
      const from = Math.max(
        dayOfInstant(Date.parse(c.activated_at ?? c.created_at)),
        firstDayFrom(Date.parse(c.created_at) + 1),
      );
      push({ kind: 'competitor_tracked', brand_id: c.id, subject: c.name }, from);
    }
    if (c.deleted_at !== null) {
      push({ kind: 'competitor_dropped', brand_id: c.id, subject: c.name }, dayOfInstant(Date.parse(c.deleted_at)) + 1);
    }
  }
  for (const p of project.prompts) {
    let wasActive = false;
    p.type_history.forEach((h, k) => {
      const active = h.prompt_type === 'active';
      const day = firstDayFrom(Date.parse(h.from));
      if (active && !wasActive) {
        push({ kind: k === 0 ? 'prompt_created' : 'prompt_activated', brand_id: null, subject: p.id }, day);
      }
      if (!active && wasActive) push({ kind: 'prompt_deactivated', brand_id: null, subject: p.id }, day);
      wasActive = active;
    });
  }
  return events.sort((a, b) => a.date.localeCompare(b.date) || a.kind.localeCompare(b.kind));
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
