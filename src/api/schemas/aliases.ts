/** Brand aliases (GET/POST/PATCH/DELETE /projects/{project_id}/aliases): envelope A, snake_case. */
import * as z from 'zod';
import { resource, Uuid } from './common.js';

export const ALIAS_LIMIT = 20;
export const ALIAS_MAX_LENGTH = 100;

export const MatchType = z.enum(['fuzzy', 'exact']);
export type MatchType = z.infer<typeof MatchType>;

export const BrandAlias = resource({ name: z.string(), match_type: MatchType });
export type BrandAlias = z.infer<typeof BrandAlias>;

export const AliasList = resource({
  project_id: Uuid,
  brand_name: z.string().nullable(),
  aliases: z.array(BrandAlias),
  limit: z.int().describe('20'),
  remaining: z.int(),
});
export type AliasList = z.infer<typeof AliasList>;

/**
 * One `next_actions` entry (fields not shown by the spec; decided): the follow-up call as a catalogue id plus its
 * method and full path, so a client can follow it without string parsing.
 */
export const NextAction = resource({
  action: z.string().describe("e.g. 'list_aliases'"),
  endpoint_id: z.string().describe("catalogue id, e.g. 'listAliases'"),
  method: z.string(),
  path: z.string().describe('path relative to the service base, parameters filled in'),
  description: z.string(),
});
export type NextAction = z.infer<typeof NextAction>;

/** Add, update and delete results: the updated list view plus `next_actions` (the client keeps it loose). */
export const AliasMutationResult = AliasList.extend({
  next_actions: z.array(z.looseObject({})).describe('served as NextAction[]'),
});
export type AliasMutationResult = z.infer<typeof AliasMutationResult>;
/** What the reference serves for add/update/delete (next_actions fully typed). */
export const AliasMutationServed = AliasList.extend({ next_actions: z.array(NextAction) });

/**
 * Alias text: length is checked by the server, which answers with the alias codes (ALIAS_EMPTY, ALIAS_TOO_LONG),
 * so the schema only requires a string.
 */
export const AliasAddBody = z.strictObject({
  alias: z.string().describe('1-100 characters'),
  match_type: MatchType.default('fuzzy'),
});
export type AliasAddBody = z.input<typeof AliasAddBody>;

export const AliasUpdateBody = z.strictObject({
  original_alias: z.string().describe('case-insensitive match'),
  new_alias: z.string().describe('1-100 characters'),
  match_type: MatchType.optional().describe('omitted keeps the current match type'),
});
export type AliasUpdateBody = z.input<typeof AliasUpdateBody>;

export const AliasDeleteQuery = z.object({ alias: z.string().describe('case-insensitive match') });
export type AliasDeleteQuery = z.output<typeof AliasDeleteQuery>;
