/** Brand aliases of a project. Alias errors carry a `code` (`{detail, code}`). */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import {
  AliasAddBody,
  AliasDeleteQuery,
  AliasList,
  AliasMutationResult,
  AliasMutationServed,
  AliasUpdateBody,
} from '../schemas/aliases.js';
import { ProjectParams } from '../schemas/common.js';

const base = {
  service: 'public',
  tag: 'aliases',
  path: '/projects/{project_id}/aliases',
  params: ProjectParams,
  envelope: 'A',
} as const;
const mutation = { data: AliasMutationResult, served: AliasMutationServed } as const;

export const aliasEndpoints = {
  listAliases: defineEndpoint({
    ...base,
    id: 'listAliases',
    method: 'GET',
    summary: 'Aliases of the project’s brand, with the limit (20) and the remaining capacity.',
    data: AliasList,
  }),
  addAlias: defineEndpoint({
    ...base,
    ...mutation,
    id: 'addAlias',
    method: 'POST',
    summary: 'Add an alias (match_type fuzzy by default).',
    body: AliasAddBody,
    errors: [ERRORS.aliasEmpty, ERRORS.aliasTooLong, ERRORS.aliasDuplicate, ERRORS.aliasLimit],
  }),
  updateAlias: defineEndpoint({
    ...base,
    ...mutation,
    id: 'updateAlias',
    method: 'PATCH',
    summary: 'Rename an alias (case-insensitive match) and optionally change its match type.',
    body: AliasUpdateBody,
    errors: [ERRORS.aliasEmpty, ERRORS.aliasTooLong, ERRORS.aliasNotFound, ERRORS.aliasDuplicate],
  }),
  deleteAlias: defineEndpoint({
    ...base,
    ...mutation,
    id: 'deleteAlias',
    method: 'DELETE',
    summary: 'Delete an alias (query alias, case-insensitive); prompts and past answers are kept.',
    query: AliasDeleteQuery,
    errors: [ERRORS.aliasEmpty, ERRORS.aliasNotFound],
  }),
} as const;
