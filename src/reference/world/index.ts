/**
 * The simulated world: `createWorld(options)` returns the `World` the reference server asks for answers and
 * aggregates (see api.ts). Everything is generated lazily from the seed; see docs/simulated-world.md.
 */
import { dayNumber } from '../../core/days.js';
import type { World, WorldOptions } from './api.js';
import { bootstrap } from './bootstrap.js';
import { demoTeam } from './demo-projects.js';
import { Engine, type EngineStats } from './engine.js';
import { promptChats, sourceChats } from './metrics/chats.js';
import { competitors, detectCompetitors, overview } from './metrics/competitors.js';
import { promptAnalytics, promptSummary } from './metrics/prompt.js';
import { promptDomains, promptUrls } from './metrics/prompt-sources.js';
import { sourceDetail, sources, sourcesAnalytics } from './metrics/sources.js';
import { visibilityTrend } from './metrics/trend.js';
import { PROVIDERS } from './providers.js';
import { truthActions, truthEvents, truthVisibility } from './truth.js';
import type { ProjectConfig, PromptConfig } from './types.js';

/** Default bound of the per-answer facts cache (about 30 bytes of facts per answer, plus the map entry). */
export const DEFAULT_CACHE_SIZE = 200_000;

export interface WorldExtras {
  /** Cache occupancy and generation counters (for tests and benchmarks). */
  stats(): EngineStats;
}

/** Options accepted by createWorld beyond the seam's WorldOptions. */
export interface CreateWorldOptions extends WorldOptions {
  /** Maximum number of answers whose compact facts are cached (default DEFAULT_CACHE_SIZE). */
  cacheSize?: number;
}

function findPrompt(project: ProjectConfig, promptId: string): PromptConfig | undefined {
  return project.prompts.find((p) => p.id === promptId);
}

export function createWorld(options: CreateWorldOptions): World & WorldExtras {
  const lateFraction = Math.min(1, Math.max(0, options.lateFraction ?? 0.1));
  const engine = new Engine({ seed: options.seed, lateFraction, cacheSize: options.cacheSize ?? DEFAULT_CACHE_SIZE });
  const emptyAnalytics = (promptId: string) => ({
    prompt_id: promptId,
    prompt_content: '',
    volume: 0,
    sentiment: null,
    visibility_chart: {},
    position_chart: {},
    sentiment_chart: {},
  });
  return {
    providers: PROVIDERS,
    stats: () => engine.stats(),
    promptSummary(project, promptId, now) {
      const prompt = findPrompt(project, promptId);
      if (!prompt) {
        return {
          visibility: null,
          sentiment: null,
          position: null,
          volume: null,
          cvr: null,
          intent: null,
          trend: null,
        };
      }
      return promptSummary(engine, project, prompt, now);
    },
    promptAnalytics(project, promptId, query) {
      const prompt = findPrompt(project, promptId);
      return prompt ? promptAnalytics(engine, project, prompt, query) : emptyAnalytics(promptId);
    },
    promptChats(project, promptId, query) {
      const prompt = findPrompt(project, promptId);
      return prompt ? promptChats(engine, project, prompt, query) : { items: [] };
    },
    promptDomains(project, promptId, query) {
      const prompt = findPrompt(project, promptId);
      return prompt ? promptDomains(engine, project, prompt, query) : { items: [] };
    },
    promptUrls(project, promptId, query) {
      const prompt = findPrompt(project, promptId);
      return prompt ? promptUrls(engine, project, prompt, query) : { items: [] };
    },
    competitors: (project, query) => competitors(engine, project, query),
    overview: (project, query, promptType) => overview(engine, project, query, promptType),
    visibilityTrend: (project, query) => visibilityTrend(engine, project, query),
    sources: (project, query) => sources(engine, project, query),
    sourcesAnalytics: (project, query) => sourcesAnalytics(engine, project, query),
    sourceDetail: (project, domain, query, page, pageSize) =>
      sourceDetail(engine, project, domain, query, page, pageSize),
    sourceChats: (project, domain, query, page, pageSize) =>
      sourceChats(engine, project, domain, query, page, pageSize),
    detectCompetitors: (project, now) => detectCompetitors(engine, project, now),
    bootstrap: (brandName, brandUrl, language, location) =>
      bootstrap(options.seed, brandName, brandUrl, language, location),
    demoTeam: (demo) => demoTeam(demo),
    truthVisibility: (project, range, byPrompt) =>
      truthVisibility(engine, project, dayNumber(range.from), dayNumber(range.to), byPrompt),
    truthActions: (project, now) => truthActions(engine, project, now),
    truthEvents: (project, now) => truthEvents(project, now),
  };
}

export type { World, WorldOptions } from './api.js';
export type { EngineStats } from './engine.js';
