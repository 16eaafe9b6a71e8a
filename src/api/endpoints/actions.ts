/** Actions (recommendations): list, get, create, enrich. Envelope A. */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import {
  Action,
  ActionCreateBody,
  ActionEnrichBody,
  ActionEnrichResult,
  ActionEnrichServed,
  ActionList,
  ActionListQuery,
  ActionParams,
} from '../schemas/actions.js';
import { ProjectParams } from '../schemas/common.js';

const base = { service: 'public', tag: 'actions', envelope: 'A' } as const;

export const actionEndpoints = {
  listActions: defineEndpoint({
    ...base,
    id: 'listActions',
    method: 'GET',
    path: '/projects/{project_id}/actions',
    summary: 'Actions of a project, optionally filtered by status and group.',
    params: ProjectParams,
    query: ActionListQuery,
    data: ActionList,
    errors: [ERRORS.invalidRequest],
  }),
  getAction: defineEndpoint({
    ...base,
    id: 'getAction',
    method: 'GET',
    path: '/projects/{project_id}/actions/{action_id}',
    summary: 'One action.',
    params: ActionParams,
    data: Action,
    errors: [ERRORS.actionNotFound],
  }),
  createAction: defineEndpoint({
    ...base,
    id: 'createAction',
    method: 'POST',
    path: '/projects/{project_id}/actions',
    summary: 'Create an action; its status is suggested.',
    params: ProjectParams,
    body: ActionCreateBody,
    data: Action,
    errors: [ERRORS.actionInvalid],
  }),
  enrichAction: defineEndpoint({
    ...base,
    id: 'enrichAction',
    method: 'POST',
    path: '/projects/{project_id}/actions/enrich',
    summary: 'Have a language model draft title, description, targets, execution, effort and expected impact.',
    params: ProjectParams,
    body: ActionEnrichBody,
    data: ActionEnrichResult,
    served: ActionEnrichServed,
    errors: [ERRORS.enrichInvalid],
  }),
} as const;
