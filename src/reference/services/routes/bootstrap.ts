/** Bootstrap service: initialize (202), prompt (202), complete (200), and the v2 project with its status. */
import type { Hono } from 'hono';
import { ERRORS } from '../../../api/index.js';
import type { BootstrapMachine } from '../bootstrap/machine.js';
import { serviceRoute } from '../http/service-route.js';

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app
export function registerBootstrapRoutes(app: Hono<any>, machine: () => BootstrapMachine): void {
  serviceRoute(app, 'bootstrapInitialize', ({ body }) => machine().initialize(body));
  serviceRoute(app, 'bootstrapPrompt', ({ body }) => machine().prompt(body.project_id));
  serviceRoute(app, 'bootstrapComplete', ({ body }) => machine().complete(body.project_id));
  serviceRoute(app, 'getBootstrapProject', ({ params }) => machine().view(params.project_id), {
    badParams: ERRORS.bootstrapProjectNotFound,
  });
}
