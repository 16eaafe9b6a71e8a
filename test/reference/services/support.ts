/**
 * Test harness of the services: the reference server built the way src/reference/index.ts builds it, with the
 * services and the workflow extension registered before it listens (node:http on port 0, real HTTP, no mocks).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { request } from 'undici';
import { expect } from 'vitest';
import { type EndpointId, endpoint } from '../../../src/api/index.js';
import { type Clock, systemClock } from '../../../src/core/clock.js';
import { BASE_PATH, buildApp } from '../../../src/reference/app.js';
import { withFaults } from '../../../src/reference/faults/injector.js';
import { registerServiceRoutes, registerWorkflowRoutes } from '../../../src/reference/routes/services/index.js';
import { ReferenceState } from '../../../src/reference/server/reference-state.js';
import { configureServices, type Services, type ServicesOptions } from '../../../src/reference/services/index.js';
import { type ReferenceServerOptions, resolveOptions } from '../../../src/reference/state/server-options.js';
import { createWorld } from '../../../src/reference/world/index.js';
import { TODAY } from '../../fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: test replies are checked by assertions and schemas
export type Json = any;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
}

export interface Harness {
  url: string;
  state: ReferenceState;
  demoKey: string;
  services: () => Services;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Public API call (`/api/public/v1` + path) with the demo key unless another is given. */
  api(method: string, path: string, body?: unknown, key?: string): Promise<Reply>;
  /** Moves the simulated clock through the control plane (background work due by then runs). */
  advance(seconds: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(
  options: ReferenceServerOptions & { services?: Partial<ServicesOptions> } = {},
): Promise<Harness> {
  const clock: Clock = options.clock ?? systemClock;
  const resolved = resolveOptions(
    {
      port: 0,
      seed: 11,
      today: TODAY,
      demo: true,
      projects: 1,
      prompts: 4,
      historyDays: 7,
      backgroundDelayMs: 60_000,
      ...options,
    },
    Date.now(),
  );
  const world = createWorld({ seed: resolved.seed, lateFraction: resolved.lateFraction });
  const state = new ReferenceState(resolved, clock, world);
  const app = buildApp(state);
  // src/reference/app.ts wires the services; register them here only if a build of the app does not.
  if (!app.routes.some((r) => r.path === '/api/v1/tasks')) {
    registerServiceRoutes(app, state);
    const extension = new Hono();
    registerWorkflowRoutes(extension, state);
    app.route(BASE_PATH, extension);
  }
  if (options.services) configureServices(state, options.services);
  const server: Server = createServer(withFaults(getRequestListener(app.fetch), state.faults));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const demoKey = state.demo?.apiKey ?? '';

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const all = { ...headers };
    let text: string | undefined;
    if (body !== undefined) {
      text = typeof body === 'string' ? body : JSON.stringify(body);
      all['content-type'] = 'application/json';
    }
    const res = await request(url + path, { method: method as 'GET', headers: all, body: text });
    const raw = await res.body.text();
    let parsed: unknown = raw;
    try {
      parsed = raw === '' ? null : JSON.parse(raw);
    } catch {
      // keep the text
    }
    return { status: res.statusCode, headers: res.headers, body: parsed };
  };

  return {
    url,
    state,
    demoKey,
    services: () => state.services,
    call,
    api: (method, path, body, key = demoKey) => call(method, BASE_PATH + path, body, { 'x-api-key': key }),
    advance: async (seconds) => {
      const reply = await call('POST', '/_reference/clock', { advance_seconds: seconds });
      expect(reply.status).toBe(200);
    },
    close: async () => {
      state.background.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The reply is the endpoint's success: its status and a body its served-response schema accepts. */
export function expectServed(id: EndpointId, reply: Reply): Json {
  const def = endpoint(id);
  expect(reply.status, JSON.stringify(reply.body)).toBe(def.successStatus);
  const parsed = def.servedResponse.safeParse(reply.body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true);
  return reply.body;
}

/** A `{detail}` error of this status (and detail). */
export function expectDetail(reply: Reply, status: number, detail?: string | RegExp): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(typeof reply.body?.detail, JSON.stringify(reply.body)).toBe('string');
  if (typeof detail === 'string') expect(reply.body.detail).toBe(detail);
  else if (detail) expect(reply.body.detail).toMatch(detail);
}

/** A content-service error `{error: {code, message}}` of this status and code. */
export function expectContentError(reply: Reply, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body?.error?.code, JSON.stringify(reply.body)).toBe(code);
  expect(typeof reply.body.error.message).toBe('string');
}

/** Creates an account through the public API: `{user_id, team_id, email, password}`. */
export async function createAccount(
  h: Harness,
  email: string,
): Promise<{ user_id: string; team_id: string; email: string; password: string }> {
  const reply = await h.call('POST', `${BASE_PATH}/account/create`, { email });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

/** Polls a condition with short real waits (for work running over real HTTP); fails after `ms`. */
export async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
