/**
 * What each bootstrap phase does. `initialize`: analyze the site, generate topics and prompts (the plan's
 * bootstrap size), detect competitors. `prompt`: send the prompts to the AI providers, one research credit per
 * prompt × provider (fewer prompts when credits run short, none at all → error). `analysis`: mentions, sentiment,
 * position and citations, which the world computes from the prompts. For a project of a team the results are
 * written to the project (as the public pipeline always did); a project without a team keeps counts only.
 */

import { PLAN_LIMITS } from '../../state/plans.js';
import type { ProjectRecord } from '../../state/projects.js';
import type { Stores } from '../../state/stores.js';
import { normalizeWebsite } from '../../views/competitor.js';
import type { CompetitorConfig, PromptConfig, TopicConfig } from '../../world/types.js';

export interface Generated {
  topics: number;
  prompts: number;
  competitors: number;
}

export interface BootTarget {
  brand_name: string;
  website_url: string;
  country: string | null;
  language: string | null;
  /** The project in the public store, when it has one (a team's project). */
  project: ProjectRecord | null;
  generated: Generated;
  /** The prompts the last initialize phase generated: `complete` serves their initial answers. */
  prompt_ids: string[];
}

export class PhaseError extends Error {}

export function initializeEffect(state: Stores, target: BootTarget): void {
  if (!/^https?:\/\/[^\s/]+\.[^\s]+$/i.test(target.website_url.trim())) {
    throw new PhaseError(`Could not fetch ${target.website_url}: the site address is not an http(s) URL`);
  }
  const result = state.world.bootstrap(target.brand_name, target.website_url, target.language, target.country);
  const project = target.project;
  const team = project ? state.accounts.teams.get(project.config.team_id) : undefined;
  if (project && !team) throw new PhaseError('The team of this project no longer exists');
  const size = team ? PLAN_LIMITS[team.plan].bootstrapPrompts : 5;
  const now = state.nowIso();
  const topics: TopicConfig[] = result.topics.map((t) => ({ id: state.ids.next('topic'), name: t.name }));
  const prompts: PromptConfig[] = result.prompts.slice(0, size).map((p) => ({
    id: state.ids.next('prompt'),
    content: p.content,
    topic_id: topics[p.topic_index]?.id ?? topics[0]?.id ?? null,
    country: target.country,
    intent: p.intent,
    created_at: now,
    type_history: [{ from: now, prompt_type: 'active' }],
  }));
  const competitors: CompetitorConfig[] = [];
  for (const found of result.detected_competitors) {
    const site = normalizeWebsite(found.website);
    if (!site || competitors.some((c) => c.website === site.url)) continue;
    competitors.push({
      id: state.ids.next('competitor'),
      name: found.name,
      website: site.url,
      state: 'pending',
      created_at: now,
      deleted_at: null,
    });
  }
  target.generated = { topics: topics.length, prompts: prompts.length, competitors: competitors.length };
  target.prompt_ids = prompts.map((p) => p.id);
  if (project) state.projects.update(project, (c) => ({ ...c, topics, prompts, competitors }));
}

export function promptEffect(state: Stores, target: BootTarget): void {
  const project = target.project;
  if (!project) return;
  const team = state.accounts.teams.get(project.config.team_id);
  if (!team) throw new PhaseError('The team of this project no longer exists');
  const providers = Math.max(1, state.world.providers.length);
  const affordable = Math.floor(state.accounts.creditsAvailable(team, state.month()) / providers);
  const count = Math.min(project.config.prompts.length, affordable);
  if (count <= 0) throw new PhaseError('Insufficient research credits for the bootstrap');
  state.accounts.spendCredits(team, state.month(), count * providers);
  if (count < project.config.prompts.length) {
    state.projects.update(project, (c) => ({ ...c, prompts: c.prompts.slice(0, count) }));
  }
  target.generated = { ...target.generated, prompts: count };
}

/**
 * `complete`: the initial answers the prompt phase fetched are served from now on. Each generated prompt still in
 * the project gets `bootstrapped_at` (once: a second completion changes nothing already served), which gives it the
 * world's bootstrap cell, the answers of its creation day (docs/reference-decisions-services.md, "Bootstrap").
 */
export function completeEffect(state: Stores, target: BootTarget): void {
  const project = target.project;
  if (!project) return;
  const ids = new Set(target.prompt_ids);
  const fresh = (p: PromptConfig) => ids.has(p.id) && !p.bootstrapped_at;
  if (!project.config.prompts.some(fresh)) return;
  const now = state.nowIso();
  state.projects.update(project, (c) => ({
    ...c,
    prompts: c.prompts.map((p) => (fresh(p) ? { ...p, bootstrapped_at: now } : p)),
  }));
}
