import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  allEndpoints,
  buildPath,
  catalogue,
  encodeQuery,
  endpoint,
  fullPath,
  routePattern,
  SERVICE_BASE_PATHS,
  statusLine,
} from '../../src/api/index.js';

describe('endpoint catalogue', () => {
  it('has unique ids equal to their keys, and unique method + path', () => {
    const seen = new Set<string>();
    for (const [key, def] of Object.entries(catalogue)) {
      expect(def.id).toBe(key);
      const route = `${def.method} ${def.basePath}${def.path}`;
      expect(seen.has(route), route).toBe(false);
      seen.add(route);
    }
  });

  it.each(allEndpoints().map((def) => [def.id, def] as const))(
    '%s: every schema converts to JSON Schema',
    (_id, def) => {
      expect(() => z.toJSONSchema(def.params, { io: 'input' })).not.toThrow();
      expect(() => z.toJSONSchema(def.query, { io: 'input' })).not.toThrow();
      if (def.body) expect(() => z.toJSONSchema(def.body!, { io: 'input' })).not.toThrow();
      expect(() => z.toJSONSchema(def.response)).not.toThrow();
      expect(() => z.toJSONSchema(def.servedResponse)).not.toThrow();
    },
  );

  it('every path parameter of a template has a params schema field', () => {
    for (const def of allEndpoints()) {
      const names = [...def.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      const shape = (def.params as z.ZodObject).shape;
      expect(Object.keys(shape).sort(), def.id).toEqual([...names].sort());
    }
  });

  it('requires the key everywhere on the public service except account create and api-key', () => {
    const open = allEndpoints()
      .filter((def) => def.service === 'public' && !def.auth)
      .map((def) => def.id);
    expect(open.sort()).toEqual(['createAccount', 'createApiKey']);
    expect(endpoint('listProjects').errors.map((row) => row.status)).toContain(401);
  });

  it('builds URL-encoded paths and router patterns', () => {
    const def = endpoint('getSourceDetail');
    const params = { project_id: '7f3c2a7e-0000-4000-8000-000000000001', domain: 'a b/c.com' };
    expect(buildPath(def, params)).toBe(`/projects/${params.project_id}/sources/a%20b%2Fc.com/detail`);
    expect(fullPath(def, params).startsWith('/api/public/v1/projects/')).toBe(true);
    expect(routePattern(def)).toBe('/api/public/v1/projects/:project_id/sources/:domain/detail');
    expect(() => buildPath(def, { project_id: params.project_id })).toThrow(/domain/);
    expect(SERVICE_BASE_PATHS.public).toBe('/api/public/v1');
  });

  it('encodes queries with comma-joined arrays and no undefined values', () => {
    expect(encodeQuery({ duration_days: 3, providers: ['a', 'b'], date_from: undefined })).toBe(
      'duration_days=3&providers=a%2Cb',
    );
  });

  it('gives status lines', () => {
    expect(statusLine(200)).toBe('200 OK');
    expect(statusLine(201)).toBe('201 Created');
    expect(statusLine(202)).toBe('202 Accepted');
  });

  it('coerces date-range queries from strings with the spec defaults', () => {
    const query = endpoint('getPromptChats').query;
    expect(query.parse({})).toEqual({ duration_days: 7 });
    expect(query.parse({ duration_days: '30', providers: 'chatgpt, perplexity' })).toEqual({
      duration_days: 30,
      providers: ['chatgpt', 'perplexity'],
    });
    expect(query.safeParse({ date_from: '2025-02-30' }).success).toBe(false);
    const sources = endpoint('listSources').query;
    expect(sources.parse({})).toMatchObject({ page: 1, page_size: 50 });
    expect(sources.safeParse({ page_size: '101' }).success).toBe(false);
    expect(endpoint('getSourceDetail').query.parse({})).toMatchObject({ page_size: 20 });
    expect(endpoint('getSourceChats').query.safeParse({ page_size: '51' }).success).toBe(false);
    expect(endpoint('listSources').pagination).toBe('page-until-empty');
  });
});
