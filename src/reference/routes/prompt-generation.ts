/**
 * Suggested-prompt generation and URL recommendations (envelope B, camelCase). Both create placeholders with empty
 * content at once and fill them in the background (default a few seconds; at once when the clock passes them).
 */
import type { Hono } from 'hono';
import { ERRORS, promptTypeToCamel } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import { currentPromptType, type ProjectRecord } from '../state/projects.js';
import { suggestionTexts, urlPromptText } from '../world/prompt-texts.js';
import type { Intent, PromptConfig, PromptType } from '../world/types.js';
import { normalizeUrl } from './recording.js';

const INTENTS: readonly Intent[] = ['informational', 'commercial', 'navigational', 'transactional'];

function placeholders(state: ReferenceState, count: number, type: PromptType): PromptConfig[] {
  const now = state.nowIso();
  return Array.from({ length: count }, (_, i) => ({
    id: state.ids.next('prompt'),
    content: '',
    topic_id: null,
    country: null,
    intent: INTENTS[i % INTENTS.length] ?? null,
    created_at: now,
    type_history: [{ from: now, prompt_type: type }],
  }));
}

/** Fills the placeholders' content (those still empty and still in the project). */
function fill(state: ReferenceState, project: ProjectRecord, ids: string[], texts: string[]): void {
  const byId = new Map(ids.map((id, i) => [id, texts[i] ?? '']));
  state.projects.update(project, (cfg) => ({
    ...cfg,
    prompts: cfg.prompts.map((p) => (byId.has(p.id) && p.content === '' ? { ...p, content: byId.get(p.id) ?? '' } : p)),
  }));
}

export function registerPromptGeneration(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(
    api,
    state,
    'suggestPrompts',
    ({ project, body }) => {
      const count = body.count ?? project.batchSize;
      const method = body.generationMethod ?? 'keyword_seo_v1';
      const idem = body.idempotencyKey;
      if (idem !== undefined) {
        const previous = state.idempotency.get(project.config.id, idem);
        if (previous !== undefined) return previous;
      }
      const created = placeholders(state, count, 'suggested');
      const config = state.projects.update(project, (cfg) => ({ ...cfg, prompts: [...cfg.prompts, ...created] }));
      const data = {
        projectId: config.id,
        queuedCount: count,
        createdCount: created.length,
        totalSuggested: config.prompts.filter((p) => currentPromptType(p) === 'suggested').length,
        prompts: created.map((p) => ({
          promptId: p.id,
          content: p.content,
          promptType: promptTypeToCamel('suggested'),
          generationMethod: method,
          createdAt: p.created_at,
        })),
        message: `${count} suggested prompts queued; their content is filled in shortly (poll the prompt list).`,
      };
      if (idem !== undefined) state.idempotency.set(project.config.id, idem, data);
      state.background.schedule(() => {
        const texts = suggestionTexts(state.world, project.config, count);
        fill(
          state,
          project,
          created.map((p) => p.id),
          texts,
        );
      });
      return data;
    },
    { invalidBody: ERRORS.suggestInvalid },
  );

  route(
    api,
    state,
    'recommendPromptsFromUrls',
    ({ project, body }) => {
      const normalized = body.urls.map((u) => normalizeUrl(u));
      if (normalized.some((u) => u === null)) throw rowError(ERRORS.urlRecsInvalid);
      const recorded = new Set(project.recorded.map((r) => r.normalized_url));
      const dbMatches = normalized.filter((u) => u !== null && recorded.has(u)).length;
      const created = placeholders(state, body.count, 'url_recommended');
      state.projects.update(project, (cfg) => ({ ...cfg, prompts: [...cfg.prompts, ...created] }));
      const brand = project.config.brand_name ?? project.config.name;
      state.background.schedule(() => {
        const texts = created.map((_, i) => urlPromptText(normalized[i % normalized.length] as string, brand, i));
        fill(
          state,
          project,
          created.map((p) => p.id),
          texts,
        );
      });
      return {
        projectId: project.config.id,
        urlsProvided: body.urls.length,
        dbMatches,
        placeholdersCreated: created.length,
        message: `${created.length} URL-recommended prompts queued; their content is filled in shortly.`,
      };
    },
    { invalidBody: ERRORS.urlRecsInvalid },
  );
}
