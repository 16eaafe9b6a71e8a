/**
 * The one route builder of the reference server, for both documents: method, path and base path from the
 * contract's catalogue entry, the query and body parsed with its schemas, the answer in the entry's envelope (A, B,
 * or none for the second document's services) with its success status. Errors are thrown as `HttpError`s for the
 * app's `onError`. What differs by service comes from the entry:
 * - public API: mounted under the public base (relative path); a `/projects/{project_id}/…` route loads the project
 *   first (team scoping); the handler reads other path ids itself.
 * - content, bootstrap, teams: mounted at their absolute path; path parameters parsed (a bad id answers
 *   `badParams`, like an unknown id); the caller's `user_id` taken from the query or the body (`placeCaller`).
 * A body or query that fails its schema answers, in this order: the content service's `VALIDATION_ERROR` with the
 * issues; the endpoint's own error row whose text is the first issue's message (the contract words its schemas
 * that way for the spec's given details); the row the route names (`invalidBody`, `invalidQuery`); else
 * `invalidRequest` listing the issues.
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodObject, type z } from 'zod';
import {
  type BodyOf,
  type Catalogue,
  type EndpointDef,
  type EndpointId,
  ERRORS,
  type ErrorRow,
  endpoint,
  type QueryOf,
  routePattern,
  wrap,
} from '../../api/index.js';
import { Uuid } from '../../api/schemas/common.js';
import { contentFail, type HttpError, rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import { loadProject } from './access.js';
import type { ApiContext } from './env.js';

export interface RouteInput<E extends EndpointDef> {
  /** The request (every app of the server is a `Hono<ApiEnv>`; `key` and `team` are set on the public API only). */
  c: ApiContext;
  /** The project of a public `/projects/{project_id}/…` route, team scoping checked before anything else. */
  project: ProjectRecord;
  /** The path parameters, parsed (second-document services only). */
  params: z.output<E['params']>;
  query: QueryOf<E>;
  body: BodyOf<E>;
}

/** The row a failed body or query answers with when no row of the endpoint carries the issue's message. */
export type InvalidRow = ErrorRow | ((issues: readonly z.core.$ZodIssue[]) => ErrorRow | undefined);

export interface RouteOptions {
  invalidBody?: InvalidRow;
  invalidQuery?: InvalidRow;
  /** The row a path parameter that fails its schema answers (an id that cannot exist). */
  badParams?: ErrorRow;
  /** Runs before anything else (e.g. the content service's simulated storage outage). */
  guard?: () => void;
}

// biome-ignore lint/suspicious/noExplicitAny: the public API app (ApiEnv) or the root app
type AnyHono = Hono<any>;

export function route<Id extends EndpointId>(
  app: AnyHono,
  state: ReferenceState,
  id: Id,
  handler: (input: RouteInput<Catalogue[Id]>) => unknown | Promise<unknown>,
  options: RouteOptions = {},
): void {
  const def = endpoint(id) as EndpointDef;
  const isPublic = def.service === 'public';
  // The public API app is mounted under its base path; the services' routes sit on the root app.
  const pattern = routePattern(isPublic ? { path: def.path, basePath: '' } : def);
  const scoped = isPublic && def.path.startsWith('/projects/{project_id}');
  app.on(def.method, pattern, async (c) => {
    options.guard?.();
    const project = scoped ? loadProject(state, c) : undefined;
    const params = isPublic ? {} : parseParams(def, c.req.param() as Record<string, string>, options.badParams);
    let rawQuery = queryObject(c);
    let rawBody: unknown;
    if (!isPublic) {
      // An endpoint without a body schema ignores its body but for the caller's `user_id`.
      rawBody = def.body
        ? await readJson(c, def, options)
        : ['GET', 'HEAD'].includes(c.req.method)
          ? undefined
          : await readJson(c, def, options).catch(() => undefined);
      ({ query: rawQuery, body: rawBody } = placeCaller(def, rawQuery, rawBody));
    }
    const query = parse(def, def.query, rawQuery, options.invalidQuery);
    if (isPublic && def.body) rawBody = await readJson(c, def, options);
    const body = def.body ? parse(def, def.body, rawBody, options.invalidBody) : undefined;
    const data = await handler({ c: c as ApiContext, project, params, query, body } as RouteInput<Catalogue[Id]>);
    const status = def.successStatus as ContentfulStatusCode;
    return c.json(wrap(def.envelope, status, data) as object, status);
  });
}

function parseParams(def: EndpointDef, raw: Record<string, string>, badParams: ErrorRow | undefined): unknown {
  const decoded: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) decoded[k] = safeDecode(v);
  const result = def.params.safeParse(decoded);
  if (result.success) return result.data;
  throw rowError(badParams ?? ERRORS.invalidRequest);
}

/**
 * "Requests identify the caller with a `user_id` parameter or body field": every service endpoint takes `user_id`
 * from the query or the body, whichever the caller used, and hands it to its schema where the catalogue declares
 * it (query or body); an endpoint that does not use it still checks it is a UUID. Both places naming different
 * users is a 400. Every other unknown body key stays refused (strict bodies).
 */
function placeCaller(
  def: EndpointDef,
  rawQuery: Record<string, string | string[]>,
  rawBody: unknown,
): { query: Record<string, string | string[]>; body: unknown } {
  const { user_id: fromQuery, ...query } = rawQuery;
  const bodyObject = typeof rawBody === 'object' && rawBody !== null && !Array.isArray(rawBody);
  const { user_id: fromBody, ...rest } = bodyObject ? (rawBody as Record<string, unknown>) : {};
  const body = bodyObject ? rest : rawBody;
  if (
    fromQuery !== undefined &&
    fromBody !== undefined &&
    String(fromQuery).toLowerCase() !== String(fromBody).toLowerCase()
  ) {
    throw invalid(def, 'user_id: the query and the body name different users');
  }
  const caller = fromQuery ?? fromBody;
  if (caller === undefined) return { query, body: rawBody };
  if (declares(def.query, 'user_id')) return { query: { ...query, user_id: caller as string }, body };
  if (def.body && declares(def.body, 'user_id')) return { query, body: { ...(body as object), user_id: caller } };
  if (!Uuid.safeParse(caller).success) throw invalid(def, 'user_id: Invalid UUID');
  return { query, body };
}

function declares(schema: z.ZodType, key: string): boolean {
  return schema instanceof ZodObject && key in schema.shape;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function queryObject(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}

async function readJson(c: Context, def: EndpointDef, options: RouteOptions): Promise<unknown> {
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
  const summary = issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  if (def.service === 'content') {
    throw contentFail(
      'VALIDATION_ERROR',
      `Invalid input parameters: ${summary}`,
      issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  const own = def.errors.find((row) => row.detail === issues[0]?.message);
  if (own) throw rowError(own);
  throw invalid(def, summary, typeof fallback === 'function' ? fallback(issues) : fallback);
}

function invalid(def: EndpointDef, summary: string, fallback?: ErrorRow): HttpError {
  if (fallback) return rowError(fallback);
  if (def.service === 'content') return contentFail('VALIDATION_ERROR', `Invalid input parameters: ${summary}`);
  return rowError(ERRORS.invalidRequest, `Invalid request: ${summary}`);
}
