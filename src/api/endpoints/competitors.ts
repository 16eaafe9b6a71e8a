/** Competitors: active and pending lists, review, create (envelope B, camelCase), update, delete. */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import { DateRangeQuery, ProjectParams } from '../schemas/common.js';
import {
  ActiveCompetitors,
  Competitor,
  CompetitorCreateBody,
  CompetitorCreateResult,
  CompetitorDeleteResult,
  CompetitorParams,
  CompetitorStateBody,
  CompetitorStateResult,
  CompetitorUpdateBody,
  PendingCompetitors,
} from '../schemas/competitors.js';

const tag = 'competitors';
const base = { service: 'public', tag } as const;

export const competitorEndpoints = {
  listCompetitors: defineEndpoint({
    ...base,
    id: 'listCompetitors',
    method: 'GET',
    path: '/projects/{project_id}/competitors',
    summary: 'Active competitors with metrics over the range; the own brand is always present.',
    params: ProjectParams,
    query: DateRangeQuery,
    envelope: 'A',
    data: ActiveCompetitors,
    errors: [ERRORS.invalidRequest, ERRORS.dateRangeInvalid],
  }),
  listPendingCompetitors: defineEndpoint({
    ...base,
    id: 'listPendingCompetitors',
    method: 'GET',
    path: '/projects/{project_id}/competitors/pending',
    summary: 'AI-discovered competitors waiting for review (no metrics).',
    params: ProjectParams,
    envelope: 'A',
    data: PendingCompetitors,
  }),
  reviewCompetitor: defineEndpoint({
    ...base,
    id: 'reviewCompetitor',
    method: 'PATCH',
    path: '/projects/{project_id}/competitors/{competitor_id}/state',
    summary: 'Accept (active) or reject (inactive) a pending competitor.',
    params: CompetitorParams,
    body: CompetitorStateBody,
    envelope: 'A',
    data: CompetitorStateResult,
    errors: [ERRORS.competitorStateInvalid, ERRORS.competitorNotFound, ERRORS.competitorNotPending],
  }),
  createCompetitors: defineEndpoint({
    ...base,
    id: 'createCompetitors',
    method: 'POST',
    path: '/projects/{project_id}/competitors',
    summary: 'Add 1-20 competitors; tracking begins immediately.',
    params: ProjectParams,
    body: CompetitorCreateBody,
    envelope: 'B',
    casing: 'camel',
    data: CompetitorCreateResult,
    errors: [ERRORS.competitorCreateInvalid, ERRORS.competitorDomainTaken, ERRORS.competitorLimit],
  }),
  updateCompetitor: defineEndpoint({
    ...base,
    id: 'updateCompetitor',
    method: 'PATCH',
    path: '/projects/{project_id}/competitors/{competitor_id}',
    summary: 'Rename a competitor or change its website.',
    params: CompetitorParams,
    body: CompetitorUpdateBody,
    envelope: 'A',
    data: Competitor,
    errors: [ERRORS.competitorUpdateInvalid, ERRORS.competitorNotFound],
  }),
  deleteCompetitor: defineEndpoint({
    ...base,
    id: 'deleteCompetitor',
    method: 'DELETE',
    path: '/projects/{project_id}/competitors/{competitor_id}',
    summary: 'Remove a competitor permanently and stop tracking it.',
    params: CompetitorParams,
    envelope: 'A',
    data: CompetitorDeleteResult,
    errors: [ERRORS.competitorNotFound],
  }),
} as const;
