/**
 * Every conformance case of the reference server, run through Stoplight Prism's validating proxy
 * (`prism proxy --errors`, tools.ts) in front of it on loopback: the public API's success case of every endpoint and
 * its every error row (400, 401, 403, 404, 409, 413, 429, the alias codes), then the same for the content, bootstrap
 * and team services of the second document. Every answer the server gives must satisfy the OpenAPI document; a
 * request the document itself refuses never reaches the server, and only the cases listed below may send one.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints, type EndpointId, ERRORS, type ErrorName } from '../../src/api/index.js';
import { BASE_PATH, control, type ReferenceServer } from '../../src/reference/index.js';
import { type Ctx, conformanceContext } from '../reference/conformance/context.js';
import { ERROR_CASES } from '../reference/conformance/error-cases.js';
import { SUCCESS_CASES } from '../reference/conformance/success-cases.js';
import {
  ERROR_CASES as SERVICE_ERROR_CASES,
  SUCCESS as SERVICE_SUCCESS,
  servicesContext,
} from '../reference/services/conformance-cases.js';
import type { Harness, Reply } from '../reference/services/support.js';
import { call, start } from '../reference/support.js';
import { type Prism, startPrism, writeDocument } from './tools.js';

/**
 * Cases whose request breaks the document, so that Prism answers it (422 or 401) and the server never sees it: the
 * document states the constraint the server enforces. Each with what the document says.
 */
const REFUSED_BY_THE_DOCUMENT: Record<string, string> = {
  missingKey: 'security: X-API-Key (Prism answers 401 itself)',
  invalidEmail: 'email: pattern @',
  brandUrlInvalid: 'brand_url: format uri',
  invalidRequest: 'duration_days: minimum 1',
  overviewPromptType: 'prompt_type: enum active, suggested',
  suggestInvalid: 'count: maximum 50',
  urlRecsInvalid: 'urls: minItems 1',
  actionInvalid: 'category: enum',
  enrichInvalid: 'action_type: enum',
  competitorStateInvalid: 'state: enum active, inactive',
  recordingInvalid: 'urls: minItems 1',
  'createTask:contentValidation': 'user_prompt: minLength 1',
  'listTasks:contentValidation': 'limit: minimum 1',
  'listArticles:contentValidation': 'page_size: maximum 100',
  'bootstrapInitialize:invalidRequest': 'brand_name: required',
  'bootstrapPrompt:invalidRequest': 'project_id: format uuid',
  'bootstrapComplete:invalidRequest': 'project_id: required',
  'createTeam:invalidRequest': 'user_id: a UUID',
  'getMyTeam:invalidRequest': 'user_id: a required query parameter',
  'listMembers:invalidRequest': 'user_id: a required query parameter',
  'addMember:invalidRequest': 'user_id: required',
  'removeMember:invalidRequest': 'user_id: a required query parameter',
  // The services' 413 cases send a body of one field the schema does not know; the public API's 413 case
  // (bodyTooLarge, a 1 MiB action description) is a valid request, so its 413 reaches Prism.
  'createTask:bodyTooLarge': 'additional property text',
  'updateArticle:bodyTooLarge': 'additional property text',
  'bootstrapInitialize:bodyTooLarge': 'additional property text',
  'bootstrapPrompt:bodyTooLarge': 'additional property text',
  'bootstrapComplete:bodyTooLarge': 'additional property text',
  'createTeam:bodyTooLarge': 'additional property text',
  'addMember:bodyTooLarge': 'additional property text',
};

interface Exchange {
  method: string;
  path: string;
  status: number;
  /** Prism's own answer (`application/problem+json`): a refused request or a server answer that broke the document. */
  prism: string | null;
  /** Prism's `sl-violations` header: what it found without refusing (warnings). */
  violations: string | null;
}

let server: ReferenceServer;
let prism: Prism;
let exchanges: Exchange[] = [];

function record(method: string, path: string, reply: Reply): Reply {
  const type = String(reply.headers['content-type'] ?? '');
  exchanges.push({
    method,
    path,
    status: reply.status,
    prism: type.includes('problem+json') ? `${reply.status} ${JSON.stringify(reply.body)}` : null,
    violations: (reply.headers['sl-violations'] as string | undefined) ?? null,
  });
  return reply;
}

/** What a case sent that Prism refused or flagged; empty when the server's every answer fits the document. */
function problems(name: string, done: Exchange[]): string[] {
  const out: string[] = [];
  done.forEach((x, index) => {
    const last = index === done.length - 1;
    if (x.violations) out.push(`${x.method} ${x.path}: ${x.violations}`);
    if (!x.prism) return;
    const refusedRequest = x.status === 422 || x.status === 401;
    if (last && refusedRequest && REFUSED_BY_THE_DOCUMENT[name]) return;
    out.push(`${x.method} ${x.path}: prism answered ${x.prism}`);
  });
  return out;
}

async function check(name: string, run: () => Promise<Reply>, status?: number): Promise<void> {
  exchanges = [];
  const reply = await run();
  const done = exchanges;
  expect(problems(name, done), name).toEqual([]);
  if (status !== undefined && !REFUSED_BY_THE_DOCUMENT[name]) expect(reply.status, name).toBe(status);
  if (REFUSED_BY_THE_DOCUMENT[name]) expect(done.at(-1)?.prism, `${name} is listed as refused by Prism`).not.toBeNull();
}

beforeAll(async () => {
  server = await start({ projects: 2, prompts: 5, historyDays: 20 });
  const { path } = writeDocument({ serverUrl: server.url });
  prism = await startPrism(path, server.url);
}, 60_000);
afterAll(async () => {
  await prism?.close();
  await server?.close();
});

describe('the public API through Prism', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    // The context's ids come straight from the server (its topics are an extension the spec does not list); the
    // cases' public API calls go through Prism, the control plane (/_reference/…) straight to the server.
    ctx = await conformanceContext(server);
    const proxied = { ...server, baseUrl: prism.url + BASE_PATH };
    ctx.req = async (method, path, opts = {}) => {
      const key = opts.key === undefined ? ctx.key : opts.key;
      const reply = await call(proxied, method, path, { body: opts.body, key });
      return path.startsWith('/_reference') ? reply : record(method, path, reply);
    };
  });

  const publicIds = allEndpoints()
    .filter((def) => def.service === 'public')
    .map((def) => def.id as EndpointId);

  it.each(publicIds)('%s: the success case', async (id) => {
    const c = SUCCESS_CASES[id];
    if (!c) throw new Error(`no success case for ${id}`);
    await check(id, () => c.run(ctx));
  });

  it.each(Object.keys(ERROR_CASES) as ErrorName[])('%s', async (name) => {
    const c = ERROR_CASES[name]!;
    await check(name, () => c.run(ctx), ERRORS[name].status);
  });
});

describe('the check itself', () => {
  /** GET /webhooks through Prism while the server injects `fault` there. */
  async function withFault(fault: string): Promise<string[]> {
    control.setFaults(server.state, `${fault}@/webhooks`);
    try {
      exchanges = [];
      record('GET', '/webhooks', await call({ ...server, baseUrl: prism.url + BASE_PATH }, 'GET', '/webhooks'));
      return problems('a fault', exchanges);
    } finally {
      control.setFaults(server.state, null);
    }
  }

  it('catches a status the operation does not declare (a 503 on GET /webhooks)', async () => {
    expect((await withFault('5xx=1:503')).join('\n')).toMatch(/Unable to match the returned status code/);
  });

  it('catches a body that breaks the schema (a webhook whose is_active is a string)', async () => {
    const team = server.state.accounts.findKey(server.demoApiKey ?? '')?.team_id ?? '';
    const broken = { id: 'wh_broken', team_id: team, url: 'https://broken.example/hook', events: ['action.failed'] };
    const stored = { ...broken, is_active: 'yes', created_at: server.state.nowIso(), secret: 'whsec_x' };
    server.state.webhooks.add(stored as unknown as Parameters<typeof server.state.webhooks.add>[0]);
    try {
      exchanges = [];
      const proxied = { ...server, baseUrl: prism.url + BASE_PATH };
      record('GET', '/webhooks', await call(proxied, 'GET', '/webhooks'));
      expect(problems('a broken body', exchanges).join('\n')).toMatch(/prism answered 500 .*VIOLATIONS.*is_active/);
    } finally {
      server.state.webhooks.delete('wh_broken');
    }
  });
});

describe('the content, bootstrap and team services through Prism', () => {
  let ctx: ReturnType<typeof servicesContext>;
  beforeAll(() => {
    ctx = servicesContext(proxiedHarness());
  });

  it.each(Object.keys(SERVICE_SUCCESS))('%s: the success case', async (id) => {
    await ctx.reset();
    await check(id, () => SERVICE_SUCCESS[id]!(ctx));
  });

  it.each(Object.keys(SERVICE_ERROR_CASES))('%s', async (key) => {
    await ctx.reset();
    await check(key, () => SERVICE_ERROR_CASES[key]!(ctx), ERRORS[key.split(':')[1] as ErrorName].status);
  });
});

/** The services' harness on the same server: /api/… through Prism, /_reference/… straight to the server. */
function proxiedHarness(): Harness {
  const call: Harness['call'] = async (method, path, body, headers = {}) => {
    const all = { ...headers };
    let text: string | undefined;
    if (body !== undefined) {
      text = typeof body === 'string' ? body : JSON.stringify(body);
      all['content-type'] = 'application/json';
    }
    const direct = path.startsWith('/_reference');
    const res = await request((direct ? server.url : prism.url) + path, {
      method: method as 'GET',
      headers: all,
      body: text,
    });
    const raw = await res.body.text();
    let parsed: unknown = raw;
    try {
      parsed = raw === '' ? null : JSON.parse(raw);
    } catch {
      // keep the text
    }
    const reply = { status: res.statusCode, headers: res.headers, body: parsed };
    return direct ? reply : record(method, path, reply);
  };
  const demoKey = server.demoApiKey ?? '';
  return {
    url: prism.url,
    state: server.state,
    demoKey,
    services: () => server.state.services,
    call,
    api: (method, path, body, key = demoKey) => call(method, BASE_PATH + path, body, { 'x-api-key': key }),
    advance: async (seconds) => {
      expect((await call('POST', '/_reference/clock', { advance_seconds: seconds })).status).toBe(200);
    },
    close: () => server.close(),
  };
}
