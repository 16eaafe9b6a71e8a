/** Small catalogue entries for the client tests, built with the contract's own `defineEndpoint`. */
import * as z from 'zod';
import { defineEndpoint } from '../../../src/api/endpoint.js';
import { ProjectParams } from '../../../src/api/schemas/common.js';

const Thing = z.looseObject({ id: z.string(), n: z.number() });

export const listThings = defineEndpoint({
  id: 'listThings',
  service: 'public',
  tag: 'test',
  method: 'GET',
  path: '/projects/{project_id}/things',
  summary: 'test: envelope A list',
  params: ProjectParams,
  envelope: 'A',
  data: z.array(Thing),
});

export const createThing = defineEndpoint({
  id: 'createThing',
  service: 'public',
  tag: 'test',
  method: 'POST',
  path: '/projects/{project_id}/things',
  summary: 'test: envelope B create',
  params: ProjectParams,
  body: z.object({ name: z.string() }),
  envelope: 'B',
  successStatus: 201,
  data: z.looseObject({ projectId: z.string(), created: z.number() }),
});

export const openThing = defineEndpoint({
  id: 'openThing',
  service: 'public',
  tag: 'test',
  method: 'POST',
  path: '/account/create',
  summary: 'test: no key needed',
  body: z.object({ email: z.string() }),
  envelope: 'B',
  data: z.looseObject({ user_id: z.string() }),
  auth: false,
});

export const PROJECT = '6f1f5c2e-8a4b-4c2d-9e3f-1a2b3c4d5e6f';
export const KEY = 'vwh_live_SECRETsecret0123456789abcdef';
