/** POST /account/create, /account/api-key (no key needed) and /account/projects. Envelope B. */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import {
  AccountCreateBody,
  AccountCreateResult,
  ApiKeyCreateBody,
  ApiKeyCreateResult,
  ProjectCreateBody,
  ProjectCreateResult,
} from '../schemas/account.js';

const tag = 'account';

export const accountEndpoints = {
  createAccount: defineEndpoint({
    id: 'createAccount',
    service: 'public',
    tag,
    method: 'POST',
    path: '/account/create',
    summary: 'Create an account and a team on the skip_trial plan; the generated password is returned once.',
    body: AccountCreateBody,
    envelope: 'B',
    data: AccountCreateResult,
    auth: false,
    errors: [ERRORS.invalidEmail, ERRORS.emailTaken, ERRORS.authUnavailable],
  }),
  createApiKey: defineEndpoint({
    id: 'createApiKey',
    service: 'public',
    tag,
    method: 'POST',
    path: '/account/api-key',
    summary: 'Create an API key (standard tier) for a team the caller administers; the full key is returned once.',
    body: ApiKeyCreateBody,
    envelope: 'B',
    data: ApiKeyCreateResult,
    auth: false,
    errors: [ERRORS.badCredentials, ERRORS.noAdminTeam, ERRORS.teamIdRequired, ERRORS.authUnavailable],
  }),
  createProject: defineEndpoint({
    id: 'createProject',
    service: 'public',
    tag,
    method: 'POST',
    path: '/account/projects',
    summary: 'Create a project and start its bootstrap pipeline; webhook_url is called when it ends.',
    body: ProjectCreateBody,
    envelope: 'B',
    successStatus: 202,
    data: ProjectCreateResult,
    errors: [ERRORS.brandNameRequired, ERRORS.brandUrlInvalid, ERRORS.webhookUrlInvalid, ERRORS.projectLimit],
  }),
} as const;
