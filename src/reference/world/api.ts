/**
 * What the reference server asks of the simulated world. Implemented in src/reference/world/index.ts by
 * `createWorld`. Every method is a pure function of (seed, options, the project snapshot, the query): the same
 * inputs give the same output, and nothing is kept but a bounded cache.
 *
 * Return values are the `data` payloads of the public data API (shared/spec/public-data-api.md), in its
 * snake_case wire shape, ready for the server to wrap in envelope A.
 */

import type { DayRange } from '../../core/days.js';
import type { TruthAction, TruthEvent, TruthVisibilityRow } from './truth.js';
import type { Day, Intent, ProjectConfig, ProviderInfo, WorldQuery } from './types.js';

export interface WorldOptions {
  seed: number;
  /** Share (0..1) of each day's answers that become visible only on the following day. Default 0.1. */
  lateFraction?: number;
}

/** The list-view metrics of one prompt (Prompt resource fields the world computes). */
export interface PromptSummary {
  visibility: number | null;
  sentiment: number | null;
  position: number | null;
  volume: number | null;
  cvr: number | null;
  intent: Intent | null;
  trend: 'up' | 'down' | 'stable' | null;
}

/** What the bootstrap pipeline (POST /account/projects, /api/v1/bootstrap/*) generates for a new brand. */
export interface BootstrapResult {
  topics: Array<{ name: string }>;
  prompts: Array<{ content: string; topic_index: number; intent: Intent }>;
  /** Competitors the pipeline detected in the initial answers; they start `pending`. */
  detected_competitors: Array<{ name: string; website: string }>;
}

export interface DemoTeamOptions {
  seed: number;
  projects: number;
  promptsPerProject: number;
  historyDays: number;
  /** Planted step changes of each project's own brand (demo-projects.ts `ownShiftsFor`); default 0. */
  ownShifts?: number;
  /** The simulated today; history starts `historyDays` before it. */
  today: Day;
  teamId: string;
}

export interface World {
  readonly providers: readonly ProviderInfo[];

  /** GET prompts list/get: the computed metric fields of one prompt over the default window ending at `now`. */
  promptSummary(project: ProjectConfig, promptId: string, now: number): PromptSummary;
  /** GET .../prompts/{id}/analytics data. */
  promptAnalytics(project: ProjectConfig, promptId: string, query: WorldQuery): unknown;
  /** GET .../prompts/{id}/chats data: `{items: ChatItem[]}` newest first. */
  promptChats(project: ProjectConfig, promptId: string, query: WorldQuery): { items: unknown[] };
  /** GET .../prompts/{id}/domains data: `{items}` sorted by citation_count desc. */
  promptDomains(project: ProjectConfig, promptId: string, query: WorldQuery): { items: unknown[] };
  /** GET .../prompts/{id}/urls data: `{items}` sorted by mentioned_count desc. */
  promptUrls(project: ProjectConfig, promptId: string, query: WorldQuery): { items: unknown[] };

  /** GET competitors data: `{active_competitors, total_active}` with the own brand injected. */
  competitors(project: ProjectConfig, query: WorldQuery): { active_competitors: unknown[]; total_active: number };
  /** GET overview data: `{items}` for prompts of `promptType` ('active' | 'suggested'). */
  overview(project: ProjectConfig, query: WorldQuery, promptType: 'active' | 'suggested'): { items: unknown[] };
  /** GET visibility data (the trend). */
  visibilityTrend(project: ProjectConfig, query: WorldQuery): unknown;
  /** GET sources data before paging: every source domain, sorted by reference_count desc. */
  sources(project: ProjectConfig, query: WorldQuery): unknown[];
  /** GET sources/analytics data. */
  sourcesAnalytics(project: ProjectConfig, query: WorldQuery): unknown;
  /** GET sources/{domain}/detail data (paged inside). */
  sourceDetail(project: ProjectConfig, domain: string, query: WorldQuery, page: number, pageSize: number): unknown;
  /** GET sources/{domain}/chats data (paged inside). */
  sourceChats(project: ProjectConfig, domain: string, query: WorldQuery, page: number, pageSize: number): unknown;

  /** Brands the world sees in answers that the project does not track yet (feeds the pending competitor list). */
  detectCompetitors(project: ProjectConfig, now: number): Array<{ name: string; website: string }>;
  bootstrap(brandName: string, brandUrl: string, language: string | null, location: string | null): BootstrapResult;
  /** The demo team's projects (configuration only; answers follow from the world). */
  demoTeam(options: DemoTeamOptions): ProjectConfig[];

  /**
   * Ground truth from the model, for the control plane (truth.ts): expected visibility per brand × provider × day
   * (and per prompt too with `byPrompt`).
   */
  truthVisibility(project: ProjectConfig, range: DayRange, byPrompt?: boolean): TruthVisibilityRow[];
  /** The effect of each completed action over its after window, complete days at `now` only. */
  truthActions(project: ProjectConfig, now: number): TruthAction[];
  /** Configuration changes that change what is measured, dated by the first day they affect. */
  truthEvents(project: ProjectConfig, now: number): TruthEvent[];
}
