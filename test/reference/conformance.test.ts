/**
 * Conformance of the reference server to the public data API, over real HTTP on port 0, driven by the catalogue:
 * - every public endpoint answers its success case with its status, envelope and served schema;
 * - every error row an endpoint's entry declares is provoked once, with its status, body shape and text;
 * - the authentication rows are answered by every authenticated endpoint, the project-access rows by every
 *   endpoint under /projects/{project_id};
 * - the tables cannot rot: the first test fails when the catalogue gains an endpoint or a row without a case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTH_ERRORS,
  allEndpoints,
  buildOpenApiDocument,
  type EndpointDef,
  type EndpointId,
  ERRORS,
  type ErrorName,
  type ErrorRow,
  endpoint,
  errorSchema,
  fullPath,
} from '../../src/api/index.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { type Ctx, conformanceContext } from './conformance/context.js';
import { ERROR_CASES } from './conformance/error-cases.js';
import { SUCCESS_CASES } from './conformance/success-cases.js';
import { expectServed, type Reply, start } from './support.js';

const PUBLIC = allEndpoints().filter((def) => def.service === 'public');
const NAME_OF = new Map<ErrorRow, ErrorName>(Object.entries(ERRORS).map(([name, row]) => [row, name as ErrorName]));
const PUBLIC_ROWS = [...new Set(PUBLIC.flatMap((def) => def.errors.map((row) => NAME_OF.get(row))))].filter(
  (name): name is ErrorName => name !== undefined,
);

function expectRow(name: ErrorName, reply: Reply, pattern?: RegExp): void {
  const row: ErrorRow = ERRORS[name];
  const context = `${name}: ${reply.status} ${JSON.stringify(reply.body)}`;
  expect(reply.status, context).toBe(row.status);
  expect(errorSchema(row.shape).safeParse(reply.body).success, context).toBe(true);
  if (pattern) expect(reply.body.detail, context).toMatch(pattern);
  else expect(reply.body.detail, context).toBe(row.detail);
  if (row.shape === 'alias') expect(reply.body.code, context).toBe(row.code);
}

/** A request to `def` with every path parameter filled; the body is a placeholder (access is checked first). */
function sweep(ctx: Ctx, def: EndpointDef, params: Record<string, string>, key: string | null): Promise<Reply> {
  const path = fullPath(def, { ...defaultParams(ctx), ...params }).slice(def.basePath.length);
  return ctx.req(def.method, path, { body: def.body ? {} : undefined, key });
}

function defaultParams(ctx: Ctx): Record<string, string> {
  return {
    project_id: ctx.projectId,
    prompt_id: ctx.promptId,
    competitor_id: '00000000-0000-4000-8000-0000000000c1',
    action_id: '00000000-0000-4000-8000-0000000000a1',
    webhook_id: 'wh_unknown',
    domain: 'reddit.com',
  };
}

describe('conformance tables', () => {
  it('have a success case for every public endpoint and a case for every error row, and nothing stale', () => {
    expect(PUBLIC.length).toBeGreaterThanOrEqual(41);
    expect(PUBLIC.map((def) => def.id).filter((id) => !SUCCESS_CASES[id as EndpointId])).toEqual([]);
    expect(PUBLIC_ROWS.filter((name) => !ERROR_CASES[name])).toEqual([]);
    const publicIds = new Set<string>(PUBLIC.map((def) => def.id));
    expect(Object.keys(SUCCESS_CASES).filter((id) => !publicIds.has(id))).toEqual([]);
    expect(Object.keys(ERROR_CASES).filter((name) => !PUBLIC_ROWS.includes(name as ErrorName))).toEqual([]);
  });

  it('declare each error case on an endpoint whose catalogue entry lists that row', () => {
    for (const [name, c] of Object.entries(ERROR_CASES)) {
      expect(endpoint(c.endpoint).errors, `${name} on ${c.endpoint}`).toContain(ERRORS[name as ErrorName]);
    }
  });
});

describe('conformance over HTTP', () => {
  let server: ReferenceServer;
  let ctx: Ctx;
  beforeAll(async () => {
    server = await start({ projects: 2, prompts: 5, historyDays: 20 });
    ctx = await conformanceContext(server);
  });
  afterAll(() => server.close());

  describe('every endpoint answers its success case', () => {
    for (const def of PUBLIC) {
      it(`${def.id}: ${def.method} ${def.path}`, async () => {
        const c = SUCCESS_CASES[def.id as EndpointId];
        if (!c) throw new Error(`no success case for ${def.id}`);
        const data = expectServed(def.id as EndpointId, await c.run(ctx));
        c.check?.(data, ctx);
      });
    }
  });

  describe('every error row is answered as the spec gives it', () => {
    for (const name of PUBLIC_ROWS) {
      it(`${name}: ${ERRORS[name].status} ${ERRORS[name].detail}`, async () => {
        const c = ERROR_CASES[name];
        if (!c) throw new Error(`no error case for ${name}`);
        const reply = await c.run(ctx);
        expectRow(name, reply, c.detail);
        if (name === 'rateLimited') {
          const seconds = /after (\d+) seconds/.exec(reply.body.detail)?.[1];
          expect(reply.headers['retry-after']).toBe(seconds);
        }
      });
    }
  });

  describe('the shared rows, on every endpoint that declares them', () => {
    const authenticated = PUBLIC.filter((def) => def.auth);
    const scoped = PUBLIC.filter((def) => def.path.startsWith('/projects/{project_id}'));

    it('answers the four 401 rows on every authenticated endpoint', async () => {
      expect(authenticated.length).toBe(PUBLIC.length - 2);
      const inactive = ctx.mint();
      const expired = ctx.mint();
      await ctx.req('POST', '/_reference/keys', { body: { api_key: inactive, status: 'inactive' }, key: null });
      await ctx.req('POST', '/_reference/keys', { body: { api_key: expired, expired: true }, key: null });
      for (const def of authenticated) {
        expect(def.errors).toEqual(expect.arrayContaining([...AUTH_ERRORS]));
        expectRow('missingKey', await sweep(ctx, def, {}, null));
        expectRow('invalidKey', await sweep(ctx, def, {}, 'vwh_not_a_key_00000000'));
        expectRow('inactiveKey', await sweep(ctx, def, {}, inactive));
        expectRow('expiredKey', await sweep(ctx, def, {}, expired));
      }
    });

    it('answers 429 with Retry-After on every authenticated endpoint once the key has spent its window', async () => {
      const key = ctx.mint({ tier: 'standard' });
      for (let i = 0; i < 70; i++) expect((await ctx.req('GET', '/webhooks', { key })).status).toBe(200);
      for (const def of authenticated) {
        const reply = await sweep(ctx, def, {}, key);
        expectRow('rateLimited', reply, /^Rate limit exceeded\. Retry after \d+ seconds\.$/);
        expect(Number(reply.headers['retry-after'])).toBeGreaterThan(0);
        expect(reply.headers['x-ratelimit-remaining']).toBe('0');
      }
    });

    it('answers 404 Project not found and 403 on a foreign project on every project endpoint', async () => {
      expect(scoped.length).toBeGreaterThan(30);
      const email = 'conformance-foreign@example.com';
      const account = (await ctx.req('POST', '/account/create', { body: { email }, key: null })).body.data;
      const foreign = (
        await ctx.req('POST', '/account/api-key', { body: { email, password: account.password }, key: null })
      ).body.data.api_key;
      const own = ctx.mint();
      for (const def of scoped) {
        expect(def.errors).toEqual(expect.arrayContaining([ERRORS.projectNotFound, ERRORS.foreignProject]));
        expectRow(
          'projectNotFound',
          await sweep(ctx, def, { project_id: '00000000-0000-4000-8000-0000000000f0' }, own),
        );
        // A project id that is not a UUID is an unknown project too, not a validation error.
        expectRow('projectNotFound', await sweep(ctx, def, { project_id: 'not-a-uuid' }, own));
        expectRow('foreignProject', await sweep(ctx, def, {}, foreign));
      }
    });
  });

  describe('around the endpoints', () => {
    it('serves the OpenAPI document generated from the catalogue, without a key', async () => {
      const served = await ctx.req('GET', '/openapi.json', { key: null });
      expect(served.status).toBe(200);
      expect(served.body).toEqual(buildOpenApiDocument({ serverUrl: server.url }));
      for (const def of PUBLIC) expect(served.body.paths[def.basePath + def.path]).toBeDefined();
    });

    it('answers a path id that is not a UUID like an unknown id: 404 with the resource row', async () => {
      expectRow('promptNotFound', await ctx.req('GET', `${ctx.p}/prompts/not-a-uuid`));
      expectRow('promptNotFound', await ctx.req('GET', `${ctx.p}/prompts/not-a-uuid/chats`));
      expectRow('actionNotFound', await ctx.req('GET', `${ctx.p}/actions/not-a-uuid`));
      expectRow(
        'competitorNotFound',
        await ctx.req('PATCH', `${ctx.p}/competitors/not-a-uuid`, { body: { name: 'X' } }),
      );
      expectRow('webhookNotFound', await ctx.req('DELETE', '/webhooks/not-a-webhook-id'));
    });
  });
});
