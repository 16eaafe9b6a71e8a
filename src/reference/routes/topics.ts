/**
 * Extension (the spec shows no topic listing; prompt create needs a topic id):
 * GET /projects/{project_id}/topics → envelope A, data `{project_id, topics: [{id, name, prompt_count}]}`.
 */
import type { Hono } from 'hono';
import { wrapA } from '../../api/index.js';
import { loadProject } from '../http/access.js';
import type { ApiEnv } from '../http/env.js';
import type { ReferenceState } from '../server/reference-state.js';

export function registerTopics(api: Hono<ApiEnv>, state: ReferenceState): void {
  api.get('/projects/:project_id/topics', (c) => {
    const project = loadProject(state, c);
    const topics = project.config.topics.map((t) => ({
      id: t.id,
      name: t.name,
      prompt_count: project.config.prompts.filter((p) => p.topic_id === t.id).length,
    }));
    return c.json(wrapA({ project_id: project.config.id, topics }));
  });
}
