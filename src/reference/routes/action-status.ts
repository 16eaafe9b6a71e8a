/**
 * Extension (the spec shows no status change): PATCH /projects/{project_id}/actions/{action_id} with `{status}`
 * moves an action along TRANSITIONS and records `completed_at`; the world starts the action's effect then.
 * Answers envelope A with the Action (plus `completed_at`). 400 unknown status or no change, 404, 409 not allowed.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { ACTION_STATUSES, wrapA } from '../../api/index.js';
import { loadProject } from '../http/access.js';
import type { ApiEnv } from '../http/env.js';
import { fail } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import { replaceAction } from '../state/projects.js';
import { actionView } from '../views/action.js';
import type { ActionConfig, ActionStatus } from '../world/types.js';
import { findAction } from './actions.js';

/** Allowed status moves (decided). `completed` is final; `ignored` can be reopened as `suggested`. */
export const TRANSITIONS: Record<ActionStatus, readonly ActionStatus[]> = {
  suggested: ['accepted', 'in_progress', 'completed', 'ignored'],
  accepted: ['in_progress', 'completed', 'ignored'],
  in_progress: ['completed', 'ignored'],
  completed: [],
  ignored: ['suggested'],
};

const Body = z.strictObject({ status: z.enum(ACTION_STATUSES) });

export function registerActionStatus(api: Hono<ApiEnv>, state: ReferenceState): void {
  api.patch('/projects/:project_id/actions/:action_id', async (c) => {
    const project = loadProject(state, c);
    const { action, details } = findAction(project, c.req.param('action_id'));
    const parsed = Body.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) throw fail(400, `status must be one of ${ACTION_STATUSES.join(', ')}`);
    const status = parsed.data.status;
    if (status === action.status) throw fail(400, 'Nothing to update');
    if (!TRANSITIONS[action.status].includes(status)) {
      throw fail(409, `An action cannot move from ${action.status} to ${status}`);
    }
    const now = state.nowIso();
    const next: ActionConfig = { ...action, status, completed_at: status === 'completed' ? now : action.completed_at };
    details.updated_at = now;
    details.status_history.push({ status, at: now });
    state.projects.update(project, (cfg) => replaceAction(cfg, next));
    return c.json(wrapA(actionView(next, details)));
  });
}
