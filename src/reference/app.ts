/**
 * The Hono application: the public API under /api/public/v1 (auth, rate limit, one route family per file), the
 * second document's services under /api/v1 and /api/v2, and the control plane under /_reference/. Faults are applied in front of it, at the Node listener (faults/injector.ts).
 */
import { Hono } from 'hono';
import { authAndLimits } from './http/auth.js';
import { boundedBodies } from './http/body-limit.js';
import { controlGuard } from './http/control-guard.js';
import type { ApiEnv } from './http/env.js';
import { onError } from './net/http-error.js';
import { registerAccounts } from './routes/accounts.js';
import { registerActionStatus } from './routes/action-status.js';
import { registerActions } from './routes/actions.js';
import { registerAliases } from './routes/aliases.js';
import { registerAnalytics } from './routes/analytics.js';
import { registerCompetitors } from './routes/competitors.js';
import { controlApp } from './routes/control.js';
import { registerOpenApi } from './routes/openapi.js';
import { registerProjects } from './routes/projects.js';
import { registerPromptAnalytics } from './routes/prompt-analytics.js';
import { registerPromptGeneration } from './routes/prompt-generation.js';
import { registerPrompts } from './routes/prompts.js';
import { registerRecording } from './routes/recording.js';
import { registerServiceRoutes, registerWorkflowRoutes } from './routes/services/index.js';
import { registerSources } from './routes/sources.js';
import { registerTopics } from './routes/topics.js';
import { registerWebhooks } from './routes/webhooks.js';
import type { ReferenceState } from './server/reference-state.js';

export const BASE_PATH = '/api/public/v1';
export const CONTROL_PATH = '/_reference';

export function buildApp(state: ReferenceState, controlToken: string | null = null): Hono<ApiEnv> {
  const api = new Hono<ApiEnv>();
  api.use('*', authAndLimits(state, BASE_PATH));
  registerOpenApi(api);
  registerAccounts(api, state);
  registerProjects(api, state);
  registerTopics(api, state);
  registerPromptGeneration(api, state);
  registerPrompts(api, state);
  registerPromptAnalytics(api, state);
  registerCompetitors(api, state);
  registerAliases(api, state);
  registerRecording(api, state);
  registerAnalytics(api, state);
  registerSources(api, state);
  registerActions(api, state);
  registerActionStatus(api, state);
  registerWebhooks(api, state);
  // The action-workflow extension of src/reference/services (behind the key authentication above).
  registerWorkflowRoutes(api, state);
  api.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  api.onError(onError);

  const app = new Hono<ApiEnv>();
  app.use('*', boundedBodies());
  // Every route under /_reference/ (control, services' switches, ground truth), whichever file registers it.
  app.use(CONTROL_PATH, controlGuard(controlToken));
  app.use(`${CONTROL_PATH}/*`, controlGuard(controlToken));
  // The second document's services (src/reference/services): /api/v1/tasks…, /api/v1/articles…,
  // /api/v1/bootstrap/…, /api/v2/projects/:id, /api/v2/create_team, /api/v2/teams/….
  registerServiceRoutes(app, state);
  app.route(BASE_PATH, api);
  app.route(CONTROL_PATH, controlApp(state));
  app.notFound((c) => c.json({ detail: 'Not Found' }, 404));
  app.onError(onError);
  return app;
}
