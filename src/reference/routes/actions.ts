/**
 * Actions: list (filters `status`, `group`), get, create (status `suggested`), enrich; and the extension
 * PATCH /projects/{id}/actions/{action_id} `{status}` (routes/action-status.ts).
 */
import type { Hono } from 'hono';
import { ERRORS } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ActionDetails, ProjectRecord } from '../state/projects.js';
import { actionView } from '../views/action.js';
import type { ActionConfig } from '../world/types.js';

export function findAction(project: ProjectRecord, id: string | undefined) {
  const action = project.config.actions.find((a) => a.id === id?.toLowerCase());
  const details = action ? project.actionDetails.get(action.id) : undefined;
  if (!action || !details) throw rowError(ERRORS.actionNotFound);
  return { action, details };
}

function executionFor(category: ActionConfig['category']): 'publishable_content' | 'forum_reply' | 'manual' {
  if (category === 'new_content') return 'publishable_content';
  if (category === 'forum_engagement') return 'forum_reply';
  return 'manual';
}

export function registerActions(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listActions', ({ project, query }) =>
    project.config.actions.flatMap((a) => {
      const d = project.actionDetails.get(a.id);
      if (!d || (query.status && a.status !== query.status) || (query.group && d.group !== query.group)) return [];
      return [actionView(a, d)];
    }),
  );

  route(api, state, 'getAction', ({ c, project }) => {
    const { action, details } = findAction(project, c.req.param('action_id'));
    return actionView(action, details);
  });

  route(
    api,
    state,
    'enrichAction',
    ({ body }) => {
      const category = body.action_type;
      const words = category.replace(/_/g, ' ');
      const subject = body.title?.trim() || body.target_url || body.keywords?.[0] || 'the brand';
      return {
        title: body.title?.trim() || `${words.charAt(0).toUpperCase()}${words.slice(1)}: ${subject}`,
        description: body.description?.trim() || `A ${words} action for ${subject}, drafted from the brief given.`,
        targets: [
          ...(body.target_url ? [{ type: 'url' as const, value: body.target_url }] : []),
          ...(body.keywords ?? []).map((k) => ({ type: 'keyword' as const, value: k })),
        ],
        execution: { type: executionFor(category), prompt: body.instructions ?? null, skill: null, params: null },
        effort: category === 'new_content' ? 'major' : category === 'on_page_seo' ? 'quick-win' : 'moderate',
        expected_impact_min: 1,
        expected_impact_max: category === 'new_content' ? 8 : 4,
      };
    },
    { invalidBody: ERRORS.enrichInvalid },
  );

  route(
    api,
    state,
    'createAction',
    ({ project, body }) => {
      if (body.title.trim() === '' || body.description.trim() === '') throw rowError(ERRORS.actionInvalid);
      const now = state.nowIso();
      const action: ActionConfig = {
        id: state.ids.next('action'),
        category: body.category,
        status: 'suggested',
        targets: body.targets ?? [],
        expected_impact_min: body.expected_impact_min ?? null,
        expected_impact_max: body.expected_impact_max ?? null,
        completed_at: null,
      };
      const details: ActionDetails = {
        priority: body.priority,
        title: body.title.trim(),
        description: body.description.trim(),
        effort: body.effort ?? null,
        execution: {
          type: body.execution.type,
          prompt: body.execution.prompt ?? null,
          skill: body.execution.skill ?? null,
          params: null,
        },
        group: null,
        depends_on: [],
        created_at: now,
        updated_at: now,
        status_history: [{ status: 'suggested', at: now }],
      };
      project.actionDetails.set(action.id, details);
      state.projects.update(project, (cfg) => ({ ...cfg, actions: [...cfg.actions, action] }));
      return actionView(action, details);
    },
    { invalidBody: ERRORS.actionInvalid },
  );
}
