/**
 * The routes of the content-generation, bootstrap and team services (second spec document) and of the action
 * workflows of the public API (the services themselves are in src/reference/services). `registerServiceRoutes`
 * mounts /api/v1/tasks…, /api/v1/articles…, /api/v1/bootstrap/…, /api/v2/projects/:id, /api/v2/create_team,
 * /api/v2/teams/… and the services' failure switches (/_reference/services/faults) on the root app; `registerWorkflowRoutes` mounts the workflow extension on the
 * public API app (behind its key authentication). See docs/reference-services.md.
 */
import type { Hono } from 'hono';
import type { ReferenceState } from '../../server/reference-state.js';
import { registerArticleRoutes } from './articles.js';
import { registerBootstrapRoutes } from './bootstrap.js';
import { registerServiceControl } from './control.js';
import { registerTaskRoutes } from './tasks.js';
import { registerTeamRoutes } from './teams.js';
import { registerWorkflowEndpoints } from './workflows.js';

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app, whatever its env
export function registerServiceRoutes(app: Hono<any>, state: ReferenceState): void {
  registerTaskRoutes(app, state);
  registerArticleRoutes(app, state);
  registerBootstrapRoutes(app, state);
  registerTeamRoutes(app, state);
  // The services' failure switches, beside the server's control plane (/_reference/services/faults).
  registerServiceControl(app, () => state.services);
}

// biome-ignore lint/suspicious/noExplicitAny: the public API app (its auth middleware sets `key` and `team`)
export function registerWorkflowRoutes(api: Hono<any>, state: ReferenceState): void {
  registerWorkflowEndpoints(api, state, () => state.services.workflows);
}
