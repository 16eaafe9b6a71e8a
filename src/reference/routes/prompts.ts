/** Prompts: list, get, create (envelope B, camelCase) and update (camelCase). */
import type { Hono } from 'hono';
import { ERRORS, promptTypeFromCamel } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { fail, rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import { PLAN_LIMITS } from '../state/plans.js';
import { currentPromptType, type ProjectRecord } from '../state/projects.js';
import { promptCamelView, promptCreatedView, promptView } from '../views/prompt.js';
import type { PromptConfig } from '../world/types.js';

export function findPrompt(project: ProjectRecord, promptId: string | undefined): PromptConfig {
  const prompt = project.config.prompts.find((p) => p.id === promptId?.toLowerCase());
  if (!prompt) throw rowError(ERRORS.promptNotFound);
  return prompt;
}

function normalizeContent(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

function topicOf(project: ProjectRecord, topicId: string): string {
  const id = topicId.toLowerCase();
  if (!project.config.topics.some((t) => t.id === id)) throw fail(400, 'topicId is not a topic of this project');
  return id;
}

/** Prompts a team tracks against its plan quota: every prompt that is not inactive (decided). */
function trackedPrompts(state: ReferenceState, teamId: string): number {
  let n = 0;
  for (const p of state.projects.ofTeam(teamId)) {
    for (const q of p.config.prompts) if (currentPromptType(q) !== 'inactive') n += 1;
  }
  return n;
}

export function registerPrompts(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listPrompts', ({ project }) => {
    const now = state.sim.now();
    const prompts = project.config.prompts.map((p) => promptView(state.world, project.config, p, now));
    return { project_id: project.config.id, total: prompts.length, prompts };
  });

  route(api, state, 'getPrompt', ({ c, project }) => {
    const prompt = findPrompt(project, c.req.param('prompt_id'));
    return promptView(state.world, project.config, prompt, state.sim.now());
  });

  route(
    api,
    state,
    'createPrompts',
    ({ c, project, body }) => {
      const topicId = topicOf(project, body.topicId);
      const country = body.country?.trim() ? body.country.trim().toUpperCase() : null;
      const existing = new Set(project.config.prompts.map((p) => normalizeContent(p.content)));
      for (const text of body.prompts) {
        const norm = normalizeContent(text);
        if (existing.has(norm)) throw rowError(ERRORS.promptDuplicate);
        existing.add(norm);
      }
      const team = c.get('team');
      if (trackedPrompts(state, team.id) + body.prompts.length > PLAN_LIMITS[team.plan].promptQuota) {
        throw rowError(ERRORS.promptQuota);
      }
      const now = state.nowIso();
      const created: PromptConfig[] = body.prompts.map((text) => ({
        id: state.ids.next('prompt'),
        content: text.trim(),
        topic_id: topicId,
        country,
        intent: null,
        created_at: now,
        type_history: [{ from: now, prompt_type: 'active' }],
      }));
      const config = state.projects.update(project, (cfg) => ({ ...cfg, prompts: [...cfg.prompts, ...created] }));
      return {
        projectId: config.id,
        created: created.length,
        prompts: created.map((p) => promptCreatedView(config, p)),
      };
    },
    { invalidBody: ERRORS.promptCreateInvalid },
  );

  route(
    api,
    state,
    'updatePrompt',
    ({ c, project, body }) => {
      const prompt = findPrompt(project, c.req.param('prompt_id'));
      const next: PromptConfig = { ...prompt };
      if (body.content !== undefined) next.content = body.content.trim();
      if (body.country !== undefined)
        next.country = body.country.trim() === '' ? null : body.country.trim().toUpperCase();
      if (body.topicId !== undefined) next.topic_id = topicOf(project, body.topicId);
      const oldType = currentPromptType(prompt);
      const newType = body.promptType !== undefined ? promptTypeFromCamel(body.promptType) : oldType;
      const unchanged =
        next.content === prompt.content &&
        next.country === prompt.country &&
        next.topic_id === prompt.topic_id &&
        newType === oldType;
      if (unchanged) throw rowError(ERRORS.promptUpdateInvalid);
      if (newType !== oldType)
        next.type_history = [...prompt.type_history, { from: state.nowIso(), prompt_type: newType }];
      const config = state.projects.update(project, (cfg) => ({
        ...cfg,
        prompts: cfg.prompts.map((p) => (p.id === prompt.id ? next : p)),
      }));
      return promptCamelView(state.world, config, next, state.sim.now());
    },
    { invalidBody: ERRORS.promptUpdateInvalid },
  );
}
