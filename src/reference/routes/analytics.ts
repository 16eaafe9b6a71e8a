/** Project analytics: overview (per prompt) and the visibility trend. */
import type { Hono } from 'hono';
import type { ApiEnv } from '../http/env.js';
import { worldQuery } from '../http/query.js';
import { route } from '../http/route.js';
import type { ReferenceState } from '../server/reference-state.js';

export function registerAnalytics(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'getOverview', ({ project, query }) => {
    return state.world.overview(project.config, worldQuery(state, query), query.prompt_type);
  });
  route(api, state, 'getVisibilityTrend', ({ project, query }) => {
    return state.world.visibilityTrend(project.config, worldQuery(state, query));
  });
}
