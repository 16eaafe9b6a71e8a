/** The page behind a cited reference: URL, title and snippet, from the domain, the prompt and a variant. */
import type { DayContext } from './context.js';
import { slugify } from './names.js';
import type { PromptPlan } from './plan.js';
import { referenceSnippet, referenceTitle, referenceUrl } from './text.js';

export interface ResolvedRef {
  domain: string;
  category: number;
  url: string;
  title: string;
  snippet: string;
}

export function resolveRef(ctx: DayContext, plan: PromptPlan, ref: { domain: number; variant: number }): ResolvedRef {
  const entry = ctx.domains[ref.domain];
  const domain = entry?.domain ?? 'unknown.example';
  const category = entry?.category ?? 5;
  const topicSlug = slugify(plan.topicName) || 'overview';
  return {
    domain,
    category,
    url: referenceUrl(domain, category, plan.slug, topicSlug, ref.variant),
    title: referenceTitle(domain, plan.slug, topicSlug, ref.variant),
    snippet: referenceSnippet(plan.topicName, ref.variant),
  };
}
