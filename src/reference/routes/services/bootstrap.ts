/** Bootstrap service: initialize (202), prompt (202), complete (200), and the v2 project with its status. */
import type { Hono } from 'hono';
import { ERRORS } from '../../../api/index.js';
import { route } from '../../http/route.js';
import type { ReferenceState } from '../../server/reference-state.js';

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app
export function registerBootstrapRoutes(app: Hono<any>, state: ReferenceState): void {
  const machine = () => state.services.bootstrap;
  route(app, state, 'bootstrapInitialize', ({ body }) => machine().initialize(body));
  route(app, state, 'bootstrapPrompt', ({ body }) => machine().prompt(body.project_id));
  route(app, state, 'bootstrapComplete', ({ body }) => machine().complete(body.project_id));
  route(app, state, 'getBootstrapProject', ({ params }) => machine().view(params.project_id), {
    badParams: ERRORS.bootstrapProjectNotFound,
  });
}
