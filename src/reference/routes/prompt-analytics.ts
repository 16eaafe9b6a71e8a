/** Per-prompt analytics, chats, domains and URLs: the world computes them over the resolved date range. */
import type { Hono } from 'hono';
import type { ApiEnv } from '../http/env.js';
import { worldQuery } from '../http/query.js';
import { route } from '../http/route.js';
import type { ReferenceState } from '../server/reference-state.js';
import { findPrompt } from './prompts.js';

export function registerPromptAnalytics(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'getPromptAnalytics', ({ c, project, query }) => {
    const prompt = findPrompt(project, c.req.param('prompt_id'));
    return state.world.promptAnalytics(project.config, prompt.id, worldQuery(state, query));
  });
  route(api, state, 'getPromptChats', ({ c, project, query }) => {
    const prompt = findPrompt(project, c.req.param('prompt_id'));
    return state.world.promptChats(project.config, prompt.id, worldQuery(state, query));
  });
  route(api, state, 'getPromptDomains', ({ c, project, query }) => {
    const prompt = findPrompt(project, c.req.param('prompt_id'));
    return state.world.promptDomains(project.config, prompt.id, worldQuery(state, query));
  });
  route(api, state, 'getPromptUrls', ({ c, project, query }) => {
    const prompt = findPrompt(project, c.req.param('prompt_id'));
    return state.world.promptUrls(project.config, prompt.id, worldQuery(state, query));
  });
}
