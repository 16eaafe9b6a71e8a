/**
 * What one catalogue entry says about an endpoint, and `defineEndpoint`, which fills in the defaults and the
 * error rows every endpoint of a kind shares (authentication, project access).
 */
import * as z from 'zod';
import { type EnvelopeKind, envelope } from './envelopes.js';
import { AUTH_ERRORS, ERRORS, type ErrorRow, PROJECT_ERRORS } from './errors.js';
import { NoParams } from './schemas/common.js';

export type Service = 'public' | 'content' | 'bootstrap' | 'teams';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Casing = 'snake' | 'camel';
/**
 * How a list is paged. `page-until-empty`: page/page_size, no total, fetch until an empty page (sources).
 * `page-total`: page/page_size with `total` in the body. `offset-limit`: offset/limit (content tasks).
 */
export type Pagination = 'none' | 'page-until-empty' | 'page-total' | 'offset-limit';

/** Base path of each service. The second document's paths begin `/api/v1` or `/api/v2`; see `basePath`. */
export const SERVICE_BASE_PATHS = {
  public: '/api/public/v1',
  content: '/api/v1',
  bootstrap: '/api/v1',
  teams: '/api/v2',
} as const satisfies Record<Service, string>;

const NoQuery = NoParams;

export interface EndpointInput<
  Id extends string,
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType | undefined,
  D extends z.ZodType,
> {
  id: Id;
  service: Service;
  /** OpenAPI tag: the resource family. */
  tag: string;
  method: HttpMethod;
  /** Relative to the service base, parameters in braces: `/projects/{project_id}/prompts`. */
  path: string;
  /** Overrides the service base for one entry (the bootstrap status lives under `/api/v2`). */
  basePath?: string;
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  envelope: EnvelopeKind;
  casing?: Casing;
  successStatus?: number;
  /** The response `data` as the client parses it (tolerant). With envelope `none`, the whole body. */
  data: D;
  /** What the reference serves, where the spec leaves the shape open; defaults to `data`. */
  served?: z.ZodType;
  auth?: boolean;
  pagination?: Pagination;
  /**
   * Endpoint-specific error rows; `defineEndpoint` adds the rows every endpoint of a kind shares (`sharedErrors`).
   */
  errors?: readonly ErrorRow[];
}

export interface EndpointDef<
  Id extends string = string,
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  D extends z.ZodType = z.ZodType,
> {
  readonly id: Id;
  readonly service: Service;
  readonly tag: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly basePath: string;
  readonly summary: string;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly envelope: EnvelopeKind;
  readonly casing: Casing;
  readonly successStatus: number;
  readonly data: D;
  readonly served: z.ZodType;
  /** The whole success body as the client parses it: `data` inside the envelope. */
  readonly response: z.ZodType;
  /** The whole success body as the reference sends it: `served` inside the envelope. */
  readonly servedResponse: z.ZodType;
  readonly auth: boolean;
  readonly pagination: Pagination;
  /** Every error row that applies, authentication and project access included. */
  readonly errors: readonly ErrorRow[];
}

export function defineEndpoint<
  const Id extends string,
  P extends z.ZodType = typeof NoParams,
  Q extends z.ZodType = typeof NoQuery,
  B extends z.ZodType | undefined = undefined,
  D extends z.ZodType = z.ZodType,
>(input: EndpointInput<Id, P, Q, B, D>): EndpointDef<Id, P, Q, B, D> {
  const auth = input.auth ?? input.service === 'public';
  const served = input.served ?? input.data;
  const own = input.errors ?? [];
  const shared = sharedErrors(input, auth).filter((row) => !own.includes(row));
  return {
    id: input.id,
    service: input.service,
    tag: input.tag,
    method: input.method,
    path: input.path,
    basePath: input.basePath ?? SERVICE_BASE_PATHS[input.service],
    summary: input.summary,
    params: (input.params ?? NoParams) as P,
    query: (input.query ?? NoQuery) as Q,
    body: input.body as B,
    envelope: input.envelope,
    casing: input.casing ?? 'snake',
    successStatus: input.successStatus ?? 200,
    data: input.data,
    served,
    response: envelope(input.envelope, input.data),
    servedResponse: envelope(input.envelope, served),
    auth,
    pagination: input.pagination ?? 'none',
    errors: [...shared, ...own],
  };
}

/**
 * The rows an endpoint answers because of what it is, not what it does: the key's 401s and rate limit (public,
 * authenticated), the project-access 403/404 (under `/projects/{project_id}`), the 400 of a body or query that fails
 * its schema (every service endpoint also checks the caller's `user_id`, so all of them), and the 413 of a body over
 * the limit (where there is a body).
 */
function sharedErrors(
  input: EndpointInput<string, z.ZodType, z.ZodType, z.ZodType | undefined, z.ZodType>,
  auth: boolean,
) {
  const rows: ErrorRow[] = [];
  const isPublic = input.service === 'public';
  if (isPublic && auth) rows.push(...AUTH_ERRORS);
  if (isPublic && input.path.startsWith('/projects/{project_id}')) rows.push(...PROJECT_ERRORS);
  if (input.service === 'content') rows.push(ERRORS.contentValidation);
  else if (!isPublic || input.body || hasFields(input.query)) rows.push(ERRORS.invalidRequest);
  if (input.body) rows.push(ERRORS.bodyTooLarge);
  return rows;
}

function hasFields(schema: z.ZodType | undefined): boolean {
  return schema instanceof z.ZodObject && Object.keys(schema.shape).length > 0;
}

/** The `data` an endpoint returns, as the client gets it after parsing. */
export type DataOf<E extends EndpointDef> = z.output<E['data']>;
/** Path parameters an endpoint needs. */
export type ParamsOf<E extends EndpointDef> = z.input<E['params']>;
/** Query values a caller may pass (before coercion and defaults). */
export type QueryInput<E extends EndpointDef> = z.input<E['query']>;
/** Query values a server handler sees (coerced, defaults applied). */
export type QueryOf<E extends EndpointDef> = z.output<E['query']>;
/** Request body a caller sends. */
export type BodyInput<E extends EndpointDef> = E['body'] extends z.ZodType ? z.input<E['body']> : never;
/** Request body a server handler sees after parsing. */
export type BodyOf<E extends EndpointDef> = E['body'] extends z.ZodType ? z.output<E['body']> : never;
