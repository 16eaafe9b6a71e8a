/**
 * Routes of the second-document services, built from the contract's catalogue: method and path from the entry,
 * path parameters, query and body parsed with its schemas, the body sent as is (no envelope) with its success
 * status. A path id that fails its schema is answered like an unknown id (the contract's decision); a bad query or
 * body is 400 (`VALIDATION_ERROR` for the content service, `Invalid request: …` elsewhere).
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
} from '../../../api/index.js';
import { Uuid } from '../../../api/schemas/common.js';
import { contentFail, type HttpError, rowError } from '../../http/http-error.js';

export interface ServiceInput<E extends EndpointDef> {
  c: Context;
  params: z.output<E['params']>;
  query: QueryOf<E>;
  body: BodyOf<E>;
}

export interface ServiceRouteOptions {
  /** The row a path parameter that fails its schema answers (an id that cannot exist). */
  badParams?: ErrorRow;
  /** Runs before anything else (e.g. the content service's simulated storage outage). */
  guard?: () => void;
}

// biome-ignore lint/suspicious/noExplicitAny: the services mount on any Hono app (root app of the reference server)
type AnyHono = Hono<any>;

export function serviceRoute<Id extends EndpointId>(
  app: AnyHono,
  id: Id,
  handler: (input: ServiceInput<Catalogue[Id]>) => unknown | Promise<unknown>,
  options: ServiceRouteOptions = {},
): void {
  const def = endpoint(id) as EndpointDef;
  const pattern = def.basePath + def.path.replace(/\{([a-z_]+)\}/g, ':$1');
  app.on(def.method, pattern, async (c) => {
    options.guard?.();
    const params = parseParams(def, c.req.param() as Record<string, string>, options.badParams);
    // An endpoint without a body schema ignores its body but for the caller's `user_id`.
    const rawBody = def.body
      ? await readJson(c, def)
      : ['GET', 'HEAD'].includes(c.req.method)
        ? undefined
        : await readJson(c, def).catch(() => undefined);
    const placed = placeCaller(def, queryObject(c), rawBody);
    const query = parseInput(def, def.query, placed.query);
    const body = def.body ? parseInput(def, def.body, placed.body) : undefined;
    const data = await handler({ c, params, query, body } as ServiceInput<Catalogue[Id]>);
    return c.json(data as object, def.successStatus as ContentfulStatusCode);
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

async function readJson(c: Context, def: EndpointDef): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(def, 'Request body must be valid JSON');
  }
}

function parseInput(def: EndpointDef, schema: z.ZodType, value: unknown): unknown {
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
  throw invalid(def, summary);
}

function invalid(def: EndpointDef, summary: string): HttpError {
  if (def.service === 'content') return contentFail('VALIDATION_ERROR', `Invalid input parameters: ${summary}`);
  return rowError(ERRORS.invalidRequest, `Invalid request: ${summary}`);
}
