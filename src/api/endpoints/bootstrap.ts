/** Bootstrap service (`/api/v1/bootstrap/*`) and the v2 project status it reports through (`/api/v2`). */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import {
  BootstrapInitializeBody,
  BootstrapProject,
  BootstrapProjectBody,
  BootstrapStepResult,
} from '../schemas/bootstrap.js';
import { ProjectParams } from '../schemas/common.js';

const base = { service: 'bootstrap', tag: 'bootstrap', envelope: 'none' } as const;

export const bootstrapEndpoints = {
  bootstrapInitialize: defineEndpoint({
    ...base,
    id: 'bootstrapInitialize',
    method: 'POST',
    path: '/bootstrap/initialize',
    summary: 'Analyze the brand site, generate topics and prompts, detect competitors (background).',
    body: BootstrapInitializeBody,
    successStatus: 202,
    data: BootstrapStepResult,
    errors: [ERRORS.invalidRequest, ERRORS.bootstrapProjectNotFound, ERRORS.bootstrapRunning],
  }),
  bootstrapPrompt: defineEndpoint({
    ...base,
    id: 'bootstrapPrompt',
    method: 'POST',
    path: '/bootstrap/prompt',
    summary: 'Send the prompts to the three AI providers; the project must be initialized.',
    body: BootstrapProjectBody,
    successStatus: 202,
    data: BootstrapStepResult,
    errors: [ERRORS.invalidRequest, ERRORS.bootstrapProjectNotFound, ERRORS.bootstrapNotInitialized],
  }),
  bootstrapComplete: defineEndpoint({
    ...base,
    id: 'bootstrapComplete',
    method: 'POST',
    path: '/bootstrap/complete',
    summary: 'Mark an analyzed project completed.',
    body: BootstrapProjectBody,
    data: BootstrapStepResult,
    errors: [ERRORS.invalidRequest, ERRORS.bootstrapProjectNotFound, ERRORS.bootstrapNotAnalyzed],
  }),
  getBootstrapProject: defineEndpoint({
    ...base,
    id: 'getBootstrapProject',
    method: 'GET',
    basePath: '/api/v2',
    path: '/projects/{project_id}',
    summary: 'A project with its current bootstrap status.',
    params: ProjectParams,
    data: BootstrapProject,
    errors: [ERRORS.bootstrapProjectNotFound],
  }),
} as const;
