/**
 * Routes are built from the contract's catalogue: method and path from the entry, the query and body parsed with
 * its schemas, the answer wrapped in its envelope with its success status. A body or query that fails its schema
 * answers the endpoint's own error row whose text is the first issue's message (the contract words its schemas
 * that way for the spec's given details), else the row the route names, else `invalidRequest` listing the issues.
 */
import type { Hono } from 'hono';
import type * as z from 'zod';
import {
  type BodyOf,
  type Catalogue,
  type EndpointDef,
  type EndpointId,
  ERRORS,
  type ErrorRow,
  endpoint,
  type QueryOf,
  wrap,
} from '../../api/index.js';
import type { ReferenceState } from '../reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import { loadProject } from './access.js';
import type { ApiContext, ApiEnv } from './env.js';
import { type HttpError, rowError } from './http-error.js';

export interface RouteInput<E extends EndpointDef> {
  c: ApiContext;
  /** The project of a `/projects/{project_id}/…` route, team scoping checked before anything else. */
  project: ProjectRecord;
  query: QueryOf<E>;
  body: BodyOf<E>;
}

/** The row a failed body or query answers with when no row of the endpoint carries the issue's message. */
export type InvalidRow = ErrorRow | ((issues: readonly z.core.$ZodIssue[]) => ErrorRow | undefined);

export interface RouteOptions {
  invalidBody?: InvalidRow;
  invalidQuery?: InvalidRow;
}

export function route<Id extends EndpointId>(
  api: Hono<ApiEnv>,
  state: ReferenceState,
  id: Id,
  handler: (input: RouteInput<Catalogue[Id]>) => unknown | Promise<unknown>,
  options: RouteOptions = {},
): void {
  const def = endpoint(id) as EndpointDef;
  const pattern = def.path.replace(/\{([a-z_]+)\}/g, ':$1');
  const scoped = def.path.startsWith('/projects/{project_id}');
  api.on(def.method, pattern, async (c) => {
    const project = scoped ? loadProject(state, c) : (undefined as unknown as ProjectRecord);
    const query = parse(def, def.query, queryObject(c), options.invalidQuery);
    const body = def.body ? parse(def, def.body, await readJson(c, def, options), options.invalidBody) : undefined;
    const data = await handler({ c, project, query, body } as RouteInput<Catalogue[Id]>);
    const status = def.successStatus as 200;
    return c.json(wrap(def.envelope, status, data) as object, status);
  });
}

function queryObject(c: ApiContext): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}

async function readJson(c: ApiContext, def: EndpointDef, options: RouteOptions): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    const fallback = typeof options.invalidBody === 'function' ? undefined : options.invalidBody;
    throw invalid(def, 'Request body must be valid JSON', fallback);
  }
}

function parse(def: EndpointDef, schema: z.ZodType, value: unknown, fallback: InvalidRow | undefined): unknown {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0]?.message ?? 'invalid';
  const own = def.errors.find((row) => row.detail === first);
  if (own) return throwRow(own);
  const summary = issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  throw invalid(def, summary, typeof fallback === 'function' ? fallback(issues) : fallback);
}

function throwRow(row: ErrorRow): never {
  throw rowError(row);
}

function invalid(_def: EndpointDef, summary: string, fallback: ErrorRow | undefined): HttpError {
  if (fallback) return rowError(fallback);
  return rowError(ERRORS.invalidRequest, `Invalid request: ${summary}`);
}
