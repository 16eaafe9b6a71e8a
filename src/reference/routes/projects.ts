/** GET /projects and GET /projects/{project_id}. */
import type { Hono } from 'hono';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import type { ReferenceState } from '../server/reference-state.js';
import { projectView } from '../views/project.js';

export function registerProjects(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listProjects', ({ c }) =>
    state.projects.ofTeam(c.get('team').id).map((p) => projectView(p.config, false)),
  );
  route(api, state, 'getProject', ({ project }) => projectView(project.config, true));
}
