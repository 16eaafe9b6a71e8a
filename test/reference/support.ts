/**
 * Test support: the reference server started in-process on port 0 (test/fixtures.ts's world, 30 days of history), and a small undici client that returns status,
 * headers and the parsed body. No mocks: every call is real HTTP.
 */
import { request } from 'undici';
import { expect } from 'vitest';
import { type EndpointId, endpoint, errorSchema } from '../../src/api/index.js';
import type { ReferenceServer, ReferenceServerOptions } from '../../src/reference/index.js';
import { referenceWorld } from '../fixtures.js';

/** Parsed JSON, loosely typed on purpose: each test asserts the fields it reads (schemas check the rest). */
// biome-ignore lint/suspicious/noExplicitAny: test replies are checked by assertions, not by the type system
export type Json = any;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
}

export async function start(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return referenceWorld({ historyDays: 30, backgroundDelayMs: 60_000, ...options });
}

export async function call(
  server: ReferenceServer,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? server.demoApiKey : opts.key;
  if (key) headers['x-api-key'] = key;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  // `/_reference/…` and the second document's `/api/v1|v2/…` are absolute; the rest is under the public base.
  const absolute = path.startsWith('/_reference') || /^\/api\/v[12]\//.test(path);
  const url = absolute ? server.url + path : server.baseUrl + path;
  const res = await request(url, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.statusCode, headers: res.headers, body: parsed };
}

export const get = (s: ReferenceServer, path: string, key?: string | null) => call(s, 'GET', path, { key });
export const post = (s: ReferenceServer, path: string, body?: unknown, key?: string | null) =>
  call(s, 'POST', path, { body: body ?? {}, key });
export const patch = (s: ReferenceServer, path: string, body?: unknown, key?: string | null) =>
  call(s, 'PATCH', path, { body: body ?? {}, key });
export const del = (s: ReferenceServer, path: string, body?: unknown, key?: string | null) =>
  call(s, 'DELETE', path, { body, key });

/** The reply is the endpoint's success: its status, and a body its served-response schema accepts. */
export function expectServed(id: EndpointId, reply: Reply): Json {
  const def = endpoint(id);
  expect(reply.status, JSON.stringify(reply.body)).toBe(def.successStatus);
  const parsed = def.servedResponse.safeParse(reply.body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true);
  return reply.body.data ?? reply.body;
}

/** The reply is an error of this status whose body parses with the error schema, with this detail (or code). */
export function expectError(reply: Reply, status: number, detail?: string | RegExp, code?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  const schema = errorSchema(code ? 'alias' : 'detail');
  if (reply.body?.error) {
    expect(errorSchema('content').safeParse(reply.body).success, JSON.stringify(reply.body)).toBe(true);
    if (code) expect(reply.body.error.code).toBe(code);
    if (typeof detail === 'string') expect(reply.body.error.message).toBe(detail);
    else if (detail) expect(reply.body.error.message).toMatch(detail);
    return;
  }
  expect(schema.safeParse(reply.body).success, JSON.stringify(reply.body)).toBe(true);
  if (typeof detail === 'string') expect(reply.body.detail).toBe(detail);
  else if (detail) expect(reply.body.detail).toMatch(detail);
  if (code) expect(reply.body.code).toBe(code);
}

/** The demo team's first project and one of its active prompts. */
export async function firstProject(
  server: ReferenceServer,
): Promise<{ projectId: string; promptId: string; topicId: string }> {
  const projects = await get(server, '/projects');
  const projectId = projects.body.data[0].id as string;
  const prompts = await get(server, `/projects/${projectId}/prompts`);
  const active = prompts.body.data.prompts.find((p: { prompt_type: string }) => p.prompt_type === 'active');
  const topics = await get(server, `/projects/${projectId}/topics`);
  return { projectId, promptId: active.id, topicId: topics.body.data.topics[0].id };
}
