/**
 * The content-generation, bootstrap and team services (second spec document) and the action workflows of the
 * public API. `registerServiceRoutes` mounts /api/v1/tasks…, /api/v1/articles…, /api/v1/bootstrap/…,
 * /api/v2/projects/:id, /api/v2/create_team, /api/v2/teams/… and the services' failure switches
 * (/_reference/services/faults) on the root app; `registerWorkflowRoutes` mounts the workflow extension on the
 * public API app (behind its key authentication). See docs/reference-services.md.
 */
import type { Hono } from 'hono';
import type { ReferenceState } from '../reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import { registerArticleRoutes } from './routes/articles.js';
import { registerBootstrapRoutes } from './routes/bootstrap.js';
import { registerServiceControl } from './routes/control.js';
import { registerTaskRoutes } from './routes/tasks.js';
import { registerTeamRoutes } from './routes/teams.js';
import { registerWorkflowEndpoints } from './routes/workflows.js';

export type { ServicesOptions } from './options.js';
export { configureServices, type Services } from './registry.js';
export { DELIVERY_ID_HEADER, SIGNATURE_HEADER, sign, verifySignature } from './workflows/signature.js';

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

/**
 * The public POST /account/projects pipeline as phases of the bootstrap state machine: every phase back to back.
 * src/reference/bootstrap.ts calls it in place of its own generation (see docs/reference-services.md).
 */
export function runAutoBootstrap(
  state: ReferenceState,
  project: ProjectRecord,
): { status: 'completed' | 'error'; error: string | null } {
  return state.services.bootstrap.runAuto(project);
}
