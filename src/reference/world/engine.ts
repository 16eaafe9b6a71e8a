/**
 * The lazy core of the world: contexts, prompt plans and per-answer facts behind bounded LRU caches, and `scan`,
 * which walks the visible answers of a project in a date range. Every aggregate is a fold over `scan`.
 */

import { DAY_MS, dayNumber, dayOfInstant } from '../../core/days.js';
import { type GeneratedAnswer, generateAnswer } from './answer.js';
import { buildContext, type DayContext, dayFingerprint } from './context.js';
import { type DecodedFacts, decodeFacts, encodeFacts } from './facts.js';
import { FactsStore } from './facts-store.js';
import { Lru } from './lru.js';
import { buildPlan, type PromptPlan } from './plan.js';
import { providerIndices } from './providers.js';
import type { ProjectConfig, PromptConfig, PromptType, WorldQuery } from './types.js';

/** On-time answers of day D are visible from D 06:00 UTC; late ones from D+1 06:00 UTC. */
export const PUBLISH_OFFSET_MS = 6 * 3_600_000;

export interface EngineOptions {
  seed: number;
  lateFraction: number;
  /** Maximum number of answers whose facts are cached. */
  cacheSize: number;
}

export interface ScannedAnswer {
  prompt: PromptConfig;
  provider: number;
  day: number;
  ctx: DayContext;
  facts: DecodedFacts;
}

export interface EngineStats {
  cachedAnswers: number;
  cacheCapacity: number;
  answersGenerated: number;
  textCharsGenerated: number;
}

/** When an answer of `day` becomes visible. */
export function visibleFrom(day: number, late: boolean): number {
  return day * DAY_MS + PUBLISH_OFFSET_MS + (late ? DAY_MS : 0);
}

/** Type history parsed once: the prompt's type at an instant. */
export function typeAt(prompt: PromptConfig, ms: number): PromptType | null {
  let type: PromptType | null = null;
  for (const h of prompt.type_history) {
    if (Date.parse(h.from) <= ms) type = h.prompt_type;
    else break;
  }
  return type;
}

/**
 * The bootstrap's initial answers of a prompt (`bootstrapped_at` set): the cell of its creation day, collected
 * between `created_at` and `bootstrapped_at` (offsets in that day, whole seconds) and visible from `bootstrapped_at`,
 * never late. Null for any other prompt, and for one created exactly at midnight (that day is answered anyway).
 */
export interface BootstrapCell {
  day: number;
  startMs: number;
  endMs: number;
  visibleAt: number;
}

export function bootstrapCell(prompt: PromptConfig): BootstrapCell | null {
  if (!prompt.bootstrapped_at) return null;
  const created = Date.parse(prompt.created_at);
  const done = Date.parse(prompt.bootstrapped_at);
  if (!Number.isFinite(created) || !Number.isFinite(done) || created % DAY_MS === 0) return null;
  const day = dayOfInstant(created);
  const second = (ms: number) => Math.floor((ms - day * DAY_MS) / 1000) * 1000;
  const startMs = second(created);
  const endMs = Math.min(Math.max(second(done), startMs), DAY_MS - 1000);
  return { day, startMs, endMs, visibleAt: Math.max(done, created) };
}

/** A prompt gets answers on day D when its type at D 00:00 UTC is `active`, and on its bootstrap cell's day. */
export function isActiveOn(prompt: PromptConfig, day: number): boolean {
  if (bootstrapCell(prompt)?.day === day) return true;
  return Date.parse(prompt.created_at) <= day * DAY_MS && typeAt(prompt, day * DAY_MS) === 'active';
}

const MAX_SEQ = 65536;
const MAX_CONTEXT_ID = 262144;

/** A prompt's type history with parsed instants. */
function activity(prompt: PromptConfig, boot: BootstrapCell | null): (day: number) => boolean {
  const created = Date.parse(prompt.created_at);
  const steps = prompt.type_history.map((h) => ({ from: Date.parse(h.from), active: h.prompt_type === 'active' }));
  return (day) => {
    if (boot?.day === day) return true;
    const ms = day * DAY_MS;
    if (created > ms) return false;
    let active = false;
    for (const s of steps) {
      if (s.from <= ms) active = s.active;
      else break;
    }
    return active;
  };
}

export class Engine {
  readonly seed: number;
  readonly lateFraction: number;
  private readonly contexts = new Lru<string, DayContext>(32);
  private readonly plans = new Lru<string, PromptPlan>(8192);
  private readonly facts: FactsStore;
  private readonly promptSeq = new Map<string, number>();
  private nextContextId = 1;
  private generated = 0;
  private textChars = 0;

  constructor(options: EngineOptions) {
    this.seed = options.seed;
    this.lateFraction = options.lateFraction;
    this.facts = new FactsStore(options.cacheSize);
  }

  stats(): EngineStats {
    return {
      cachedAnswers: this.facts.size,
      cacheCapacity: this.facts.capacity,
      answersGenerated: this.generated,
      textCharsGenerated: this.textChars,
    };
  }

  context(project: ProjectConfig, day: number): DayContext {
    const fingerprint = dayFingerprint(project, day);
    let ctx = this.contexts.get(fingerprint);
    if (!ctx) {
      if (this.nextContextId >= MAX_CONTEXT_ID) this.reset();
      ctx = buildContext(this.seed, this.nextContextId++, fingerprint, project, day);
      this.contexts.set(fingerprint, ctx);
    }
    return ctx;
  }

  plan(ctx: DayContext, prompt: PromptConfig): PromptPlan {
    const key = `${ctx.id}\u0001${prompt.id}\u0001${prompt.topic_id}\u0001${prompt.content}`;
    let plan = this.plans.get(key);
    if (!plan) {
      plan = buildPlan(this.seed, ctx, prompt);
      this.plans.set(key, plan);
    }
    return plan;
  }

  /** The full answer, text included unless `withText` is false (never cached). */
  answer(
    ctx: DayContext,
    prompt: PromptConfig,
    provider: number,
    day: number,
    withText = true,
    plan = this.plan(ctx, prompt),
  ): GeneratedAnswer {
    const boot = bootstrapCell(prompt);
    const window = boot?.day === day ? boot : undefined;
    const answer = generateAnswer(this.seed, this.lateFraction, ctx, plan, provider, day, withText, window);
    this.generated++;
    this.textChars += answer.text.length;
    return answer;
  }

  /** A small number per (prompt id, topic, content), part of the facts cache key. */
  promptSeqOf(prompt: PromptConfig): number {
    const promptKey = `${prompt.id}\u0001${prompt.topic_id}\u0001${prompt.content}`;
    let seq = this.promptSeq.get(promptKey);
    if (seq === undefined) {
      if (this.promptSeq.size >= MAX_SEQ) this.reset();
      seq = this.promptSeq.size;
      this.promptSeq.set(promptKey, seq);
    }
    return seq;
  }

  factsOf(
    ctx: DayContext,
    prompt: PromptConfig,
    provider: number,
    day: number,
    seq = this.promptSeqOf(prompt),
    plan?: () => PromptPlan,
  ): DecodedFacts {
    // Series key: context id (< 2^18), prompt seq (< 2^16), provider (< 4): 36 bits.
    const key = (ctx.id * MAX_SEQ + seq) * 4 + provider;
    const cached = this.facts.get(key, day);
    if (cached !== undefined) return decodeFacts(cached);
    const { facts } = this.answer(ctx, prompt, provider, day, false, plan ? plan() : this.plan(ctx, prompt));
    this.facts.set(key, day, encodeFacts(facts));
    return facts;
  }

  /** Forgets every cache (when the numeric key spaces would wrap). */
  private reset(): void {
    this.facts.clear();
    this.plans.clear();
    this.contexts.clear();
    this.promptSeq.clear();
    this.nextContextId = 1;
  }

  /** Day numbers of a query, clamped to today (the day of `now`). */
  days(query: WorldQuery): { from: number; to: number } {
    return {
      from: dayNumber(query.range.from),
      to: Math.min(dayNumber(query.range.to), dayOfInstant(query.now)),
    };
  }

  /**
   * Calls `fn` for every answer visible at `query.now` in the range, for the given prompts (default: all), oldest
   * day first, then prompt order, then provider order.
   */
  scan(project: ProjectConfig, query: WorldQuery, fn: (a: ScannedAnswer) => void, prompts = project.prompts): void {
    const providers = providerIndices(query.providers);
    const { to } = this.days(query);
    let { from } = this.days(query);
    const earliest = Math.min(...prompts.map((p) => dayOfInstant(Date.parse(p.created_at))));
    if (Number.isFinite(earliest)) from = Math.max(from, earliest);
    const entries = prompts.map((prompt) => {
      const boot = bootstrapCell(prompt);
      return {
        prompt,
        seq: this.promptSeqOf(prompt),
        boot,
        active: activity(prompt, boot),
        plan: null as PromptPlan | null,
        planCtx: null as DayContext | null,
      };
    });
    for (let day = from; day <= to; day++) {
      const ctx = this.context(project, day);
      for (const entry of entries) {
        if (!entry.active(day)) continue;
        const { prompt, seq } = entry;
        const plan = () => {
          if (entry.planCtx !== ctx || !entry.plan) {
            entry.plan = this.plan(ctx, prompt);
            entry.planCtx = ctx;
          }
          return entry.plan;
        };
        for (const provider of providers) {
          const facts = this.factsOf(ctx, prompt, provider, day, seq, plan);
          const visible = entry.boot?.day === day ? entry.boot.visibleAt : visibleFrom(day, facts.late);
          if (visible > query.now) continue;
          fn({ prompt, provider, day, ctx, facts });
        }
      }
    }
  }
}
