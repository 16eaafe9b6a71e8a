/** GET /api/public/v1/openapi.json: the contract's OpenAPI document (no key needed; extension of the spec). */
import type { Hono } from 'hono';
import { buildOpenApiDocument } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';

export function registerOpenApi(api: Hono<ApiEnv>): void {
  let doc: unknown = null;
  api.get('/openapi.json', (c) => {
    doc ??= buildOpenApiDocument({ serverUrl: new URL(c.req.url).origin });
    return c.json(doc as object);
  });
}
