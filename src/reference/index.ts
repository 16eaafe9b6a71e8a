/**
 * The reference server of the public data API: `startReferenceServer(options)` starts it (port 0 = any free
 * port) and resolves once it listens. Tests start it in-process; `vwh serve` starts it from the command line.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { systemClock } from '../core/clock.js';
import { registerSecret } from '../core/errors.js';
import { BASE_PATH, buildApp } from './app.js';
import { withFaults } from './faults/injector.js';
import { checkControlExposure, isLoopbackHost } from './http/control-guard.js';
import { withSimulatedDate } from './http/sim-date.js';
import { ReferenceState } from './server/reference-state.js';
import { randomToken } from './state/ids.js';
import { type ReferenceServerOptions, resolveOptions } from './state/server-options.js';
import { createWorld } from './world/index.js';

export { BASE_PATH, CONTROL_PATH } from './app.js';
export * as control from './control/ops.js';
export { ReferenceState } from './server/reference-state.js';
export type { ReferenceServerOptions } from './state/server-options.js';

export interface ReferenceServer {
  /** `http://HOST:PORT` */
  url: string;
  port: number;
  /** `url + '/api/public/v1'` */
  baseUrl: string;
  demoApiKey?: string;
  /** The token /_reference/ calls must carry (`X-Reference-Token`), or null when none is needed (loopback). */
  controlToken: string | null;
  state: ReferenceState;
  close(): Promise<void>;
}

/** One exchange answered in process: status, lower-case headers (the simulated `Date` among them), body text. */
export interface InProcessResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The reference services without a listener: their state, and requests answered as the server answers them. */
export interface InProcessReference {
  state: ReferenceState;
  demoApiKey?: string;
  /**
   * One request to the application, no socket: the `Date` header is the simulated clock's, as the listener sets it
   * (`withSimulatedDate`); faults, which the listener injects, are not applied.
   */
  request(input: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
  }): Promise<InProcessResponse>;
  /** Stops the background work. */
  close(): void;
}

/** The state and application of a reference server, built once for both ways of answering. */
function assemble(options: ReferenceServerOptions, controlToken: string | null) {
  const resolved = resolveOptions(options, Date.now());
  const world = createWorld({ seed: resolved.seed, lateFraction: resolved.lateFraction });
  const state = new ReferenceState(resolved, options.clock ?? systemClock, world);
  return { resolved, state, app: buildApp(state, controlToken) };
}

/** The reference services answered in process, without HTTP (benches land big worlds through it). */
export function createReference(options: ReferenceServerOptions = {}): InProcessReference {
  const { state, app } = assemble(options, null);
  return {
    state,
    demoApiKey: state.demo?.apiKey,
    request: async ({ method, url, headers, body }) => {
      const res = await app.fetch(new Request(url, { method, headers, body }));
      const out: Record<string, string> = { date: new Date(state.sim.now()).toUTCString() };
      res.headers.forEach((value, name) => {
        out[name] = value;
      });
      return { status: res.status, headers: out, text: await res.text() };
    },
    close: () => state.background.stop(),
  };
}

export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const asked = resolveOptions(options, Date.now());
  checkControlExposure(asked.host, asked.allowRemoteControl);
  const controlToken = options.controlToken ?? (isLoopbackHost(asked.host) ? null : randomToken(32));
  registerSecret(controlToken ?? undefined);
  const { resolved, state, app } = assemble(options, controlToken);
  const listener = withSimulatedDate(withFaults(getRequestListener(app.fetch), state.faults), state.sim);
  const server: Server = createServer(listener);
  // Idle keep-alive connections outlive every client's (undici's 4 s default, vwh's own 30 s): a server that closes
  // an idle connection first races the client's next request on it, which then fails with "other side closed".
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    port: address.port,
    baseUrl: url + BASE_PATH,
    demoApiKey: state.demo?.apiKey,
    controlToken,
    state,
    close: async () => {
      state.background.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
