/**
 * Extension of the public API (the spec does not show how the execute workflow starts or how a checkpoint is
 * answered), under the public base path and its key authentication, envelope A:
 *   POST /projects/{project_id}/actions/{action_id}/execute            → 202 the workflow (status running)
 *   GET  /projects/{project_id}/workflows/{workflow_id}                → 200 the workflow, deliveries included
 *   POST /projects/{project_id}/workflows/{workflow_id}/checkpoint     → 200 the workflow
 *        body {action: approve|edit|regenerate|reject, content? (required by edit), checkpoint? (guard)}
 * Request and response schemas: src/api/schemas/workflows.ts (`CheckpointAnswerBody`, `Workflow`).
 */
import type { Hono } from 'hono';
import { CheckpointAnswerBody, WORKFLOW_CHECKPOINTS, wrapA } from '../../../api/index.js';
import { loadProject, requireAdmin } from '../../http/access.js';
import type { ApiContext } from '../../http/env.js';
import { fail } from '../../net/http-error.js';
import type { ReferenceState } from '../../server/reference-state.js';
import { ANSWERS, type WorkflowEngine, workflowView } from '../../services/workflows/engine.js';

// biome-ignore lint/suspicious/noExplicitAny: mounted on the public API app (its auth middleware sets key and team)
export function registerWorkflowEndpoints(api: Hono<any>, state: ReferenceState, engine: () => WorkflowEngine): void {
  api.post('/projects/:project_id/actions/:action_id/execute', async (c: ApiContext) => {
    const project = loadProject(state, c);
    requireAdmin(c);
    const actionId = (c.req.param('action_id') ?? '').toLowerCase();
    const workflow = engine().start(project.config.id, c.get('team').id, actionId);
    return c.json(wrapA(workflowView(workflow)), 202);
  });

  api.get('/projects/:project_id/workflows/:workflow_id', async (c: ApiContext) => {
    const project = loadProject(state, c);
    const workflow = engine().get(c.req.param('workflow_id') ?? '', c.get('team').id, project.config.id);
    return c.json(wrapA(workflowView(workflow)));
  });

  api.post('/projects/:project_id/workflows/:workflow_id/checkpoint', async (c: ApiContext) => {
    const project = loadProject(state, c);
    requireAdmin(c);
    const workflow = engine().get(c.req.param('workflow_id') ?? '', c.get('team').id, project.config.id);
    const parsed = CheckpointAnswerBody.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) {
      throw fail(
        400,
        `action must be one of ${ANSWERS.join(', ')}; content is a string; checkpoint is one of ${WORKFLOW_CHECKPOINTS.join(', ')}`,
      );
    }
    const { action, ...opts } = parsed.data;
    const clean: { content?: string; checkpoint?: string } = {};
    if (opts.content !== undefined) clean.content = opts.content;
    if (opts.checkpoint !== undefined) clean.checkpoint = opts.checkpoint;
    return c.json(wrapA(workflowView(engine().answer(workflow, action, clean))));
  });
}
