import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { API_KEY_SCHEME, allEndpoints, buildOpenApiDocument, openApiPath } from '../../src/api/index.js';
import { register } from '../../src/cli/commands/openapi.js';

const doc = buildOpenApiDocument();

interface Op {
  operationId: string;
  security: unknown[];
  responses: Record<string, unknown>;
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

describe('vwh openapi', () => {
  it('writes the document to --out', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'vwh-openapi-')), 'nested', 'openapi.json');
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
