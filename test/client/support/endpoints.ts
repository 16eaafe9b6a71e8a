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

export const listSourcesLike = defineEndpoint({
  id: 'listSourcesLike',
  service: 'public',
  tag: 'test',
  method: 'GET',
  path: '/projects/{project_id}/sources',
  summary: 'test: page until empty',
  params: ProjectParams,
  query: z.object({ page: z.coerce.number().optional(), page_size: z.coerce.number().optional() }),
  envelope: 'A',
  data: z.array(z.looseObject({ domain: z.string() })),
  pagination: 'page-until-empty',
});

const paged = z.looseObject({ page: z.int(), page_size: z.int(), total: z.int(), items: z.array(z.unknown()) });
export const sourceDetailLike = defineEndpoint({
  id: 'sourceDetailLike',
  service: 'public',
  tag: 'test',
  method: 'GET',
  path: '/projects/{project_id}/sources/{domain}/detail',
  summary: 'test: page with totals',
  params: z.object({ project_id: z.string(), domain: z.string() }),
  query: z.object({ page: z.coerce.number().optional(), page_size: z.coerce.number().optional() }),
  envelope: 'A',
  data: z.looseObject({ urls: paged, prompts: paged }),
  pagination: 'page-total',
});

export const PROJECT = '6f1f5c2e-8a4b-4c2d-9e3f-1a2b3c4d5e6f';
export const KEY = 'vwh_live_SECRETsecret0123456789abcdef';
