import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import {
  AliasErrorBody,
  API_KEY_SCHEME,
  allEndpoints,
  buildOpenApiDocument,
  ContentErrorBody,
  ErrorBody,
  openApiPath,
  WEBHOOK_SIGNATURE_SCHEME,
} from '../../src/api/index.js';
import { register } from '../../src/cli/commands/openapi.js';
import { tempDir } from '../fixtures.js';

const doc = buildOpenApiDocument();

interface ErrorResponse {
  headers?: Record<string, { required?: boolean }>;
  content: { 'application/json': { schema: Record<string, unknown>; examples: Record<string, { value: unknown }> } };
}
interface Op {
  operationId: string;
  description?: string;
  security: unknown[];
  responses: Record<string, ErrorResponse>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  parameters: Array<{ name: string; in: string; schema: unknown }>;
}
function op(path: string, method: string): Op {
  return doc.paths[path]![method.toLowerCase()] as unknown as Op;
}

/** Runs `vwh openapi …` through the command's own registration (the rest of the CLI is not needed). */
async function runOpenapi(...args: string[]): Promise<void> {
  const program = new Command().exitOverride();
  register(program);
  await program.parseAsync(['node', 'vwh', 'openapi', ...args]);
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with the X-API-Key scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes[API_KEY_SCHEME]).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('has every path and method of the catalogue, once', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = allEndpoints().map((def) => `${def.method} ${openApiPath(def)}`);
    expect(operations.sort()).toEqual(expected.sort());
  });

  it('gives each operation its id, a success response and error responses', () => {
    for (const def of allEndpoints()) {
      const operation = op(openApiPath(def), def.method);
      expect(operation.operationId).toBe(def.id);
      expect(Object.keys(operation.responses)).toContain(String(def.successStatus));
      for (const row of def.errors) expect(Object.keys(operation.responses), def.id).toContain(String(row.status));
      if (def.body) expect(operation.requestBody?.content['application/json']?.schema).toBeTruthy();
    }
  });

  it('requires the key on every public operation except account create and api-key', () => {
    const open: string[] = [];
    for (const def of allEndpoints().filter((d) => d.service === 'public')) {
      const { security } = op(openApiPath(def), def.method);
      if (security.length === 0) open.push(def.id);
      else expect(security).toEqual([{ [API_KEY_SCHEME]: [] }]);
    }
    expect(open.sort()).toEqual(['createAccount', 'createApiKey']);
  });

  it('refers to shared resources as components and leaves no dangling reference', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('#/$defs/');
    expect(text).toContain('"$ref":"#/components/schemas/ChatItem"');
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(doc.components.schemas, name).toHaveProperty(name!);
    }
  });

  it('describes path and query parameters', () => {
    const { parameters } = op('/api/public/v1/projects/{project_id}/sources', 'GET');
    const names = parameters.map((p) => `${p.in}:${p.name}`);
    expect(names).toEqual(
      expect.arrayContaining(['path:project_id', 'query:page', 'query:page_size', 'query:duration_days']),
    );
    const pageSize = parameters.find((p) => p.name === 'page_size');
    expect(pageSize?.schema).toMatchObject({ default: 50, maximum: 100 });
  });
});

const ERROR_SCHEMAS = { ErrorBody, AliasErrorBody, ContentErrorBody } as const;

/** Every error response of every operation, with its status. */
function errorResponses(): Array<{ id: string; status: string; response: ErrorResponse }> {
  return allEndpoints().flatMap((def) =>
    Object.entries(op(openApiPath(def), def.method).responses)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => ({ id: def.id, status, response })),
  );
}

describe('OpenAPI document: what the linters and Prism need', () => {
  it('gives each error status one body schema (no oneOf), which every one of its examples satisfies', () => {
    for (const { id, status, response } of errorResponses()) {
      const { schema, examples } = response.content['application/json'];
      const name = String(schema.$ref).replace('#/components/schemas/', '') as keyof typeof ERROR_SCHEMAS;
      expect(Object.keys(schema), `${id} ${status}`).toEqual(['$ref']);
      expect(ERROR_SCHEMAS[name], `${id} ${status}: ${name}`).toBeDefined();
      for (const [example, { value }] of Object.entries(examples)) {
        expect(ERROR_SCHEMAS[name].safeParse(value).success, `${id} ${status} ${example}`).toBe(true);
      }
    }
    // An alias endpoint's 404 is either `Project not found` or ALIAS_NOT_FOUND: one schema with an optional code.
    const notFound = op('/api/public/v1/projects/{project_id}/aliases', 'PATCH').responses['404']!;
    expect(notFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(ErrorBody.safeParse({ detail: 'Alias not found', code: 'ALIAS_NOT_FOUND' }).success).toBe(true);
    expect(AliasErrorBody.safeParse({ detail: 'Project not found' }).success).toBe(false);
    // A status that holds alias errors only keeps the schema whose code is required.
    const duplicate = op('/api/public/v1/projects/{project_id}/aliases', 'POST').responses['409']!;
    expect(duplicate.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AliasErrorBody' });
  });

  it('requires Retry-After on a 429 that only the rate limit answers, and only describes it beside a quota', () => {
    const limited = op('/api/public/v1/projects', 'GET').responses['429']!;
    expect(limited.headers?.['Retry-After']?.required).toBe(true);
    expect(limited.headers?.['X-RateLimit-Remaining']?.required).toBe(true);
    // POST aliases answers 429 for the rate limit and for ALIAS_LIMIT_REACHED (no Retry-After): not required.
    const mixed = op('/api/public/v1/projects/{project_id}/aliases', 'POST').responses['429']!;
    expect(mixed.headers?.['Retry-After']).toBeDefined();
    expect(mixed.headers?.['Retry-After']?.required).toBeUndefined();
    const seats = op('/api/v2/teams/{team_id}/members', 'POST').responses['429']!;
    expect(seats.headers).toBeUndefined();
  });

  it('documents the 400 of a body or query that fails its schema and the 413 of a body over the limit', () => {
    for (const def of allEndpoints()) {
      const { responses, requestBody } = op(openApiPath(def), def.method);
      if (requestBody) expect(Object.keys(responses), def.id).toEqual(expect.arrayContaining(['400', '413']));
      if (def.service !== 'public') expect(Object.keys(responses), def.id).toContain('400');
    }
    expect(Object.keys(op('/api/public/v1/projects', 'GET').responses)).not.toContain('400');
  });

  it('describes every operation and tag, and names a licence', () => {
    for (const def of allEndpoints()) {
      expect(op(openApiPath(def), def.method).description, def.id).toMatch(/\S/);
    }
    const tags = new Set(allEndpoints().map((def) => def.tag));
    expect(doc.tags.map((t) => t.name).sort()).toEqual([...tags].sort());
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/\S/);
    expect(doc.info.license.name).toMatch(/\S/);
  });

  it('gives the webhooks an operationId and their security: signed workflow deliveries, an unsigned callback', () => {
    const hooks = doc.webhooks as Record<string, { post: { operationId: string; security: unknown[] } }>;
    expect(hooks['project.bootstrap']?.post).toMatchObject({ operationId: 'projectBootstrapCallback', security: [] });
    expect(hooks['action.workflow']?.post).toMatchObject({
      operationId: 'actionWorkflowDelivery',
      security: [{ [WEBHOOK_SIGNATURE_SCHEME]: [] }],
    });
    expect(doc.components.securitySchemes[WEBHOOK_SIGNATURE_SCHEME]).toMatchObject({ name: 'X-Webhook-Signature' });
  });

  it('has no component that nothing refers to', () => {
    const text = JSON.stringify({ paths: doc.paths, webhooks: doc.webhooks, components: doc.components.schemas });
    const unused = Object.keys(doc.components.schemas).filter(
      (name) => !text.includes(`"#/components/schemas/${name}"`),
    );
    expect(unused).toEqual([]);
  });
});

describe('vwh openapi', () => {
  it('writes the document to --out', async () => {
    const out = join(tempDir('vwh-openapi-').dir, 'nested', 'openapi.json');
    await runOpenapi('--out', out, '--server-url', 'http://localhost:1');
    const written = JSON.parse(readFileSync(out, 'utf8'));
    expect(written.servers).toEqual([{ url: 'http://localhost:1' }]);
    expect(Object.keys(written.paths)).toHaveLength(Object.keys(doc.paths).length);
  });

  it('prints the document to stdout by default', async () => {
    const chunks: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      chunks.push(String(chunk));
      return true;
    });
    try {
      await runOpenapi();
    } finally {
      write.mockRestore();
    }
    expect(JSON.parse(chunks.join('')).openapi).toBe('3.1.0');
  });
});
