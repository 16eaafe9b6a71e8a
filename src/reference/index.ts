/**
 * The reference server of the public data API: `startReferenceServer(options)` starts it (port 0 = any free
 * port) and resolves once it listens. Tests start it in-process; `vwh serve` starts it from the command line.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { type Clock, systemClock } from '../core/clock.js';
import { registerSecret } from '../core/errors.js';
import { BASE_PATH, buildApp } from './app.js';
import { withFaults } from './faults/injector.js';
import { checkControlExposure, isLoopbackHost } from './http/control-guard.js';
import { withSimulatedDate } from './http/sim-date.js';
import { randomToken } from './ids.js';
import { type ReferenceServerOptions, resolveOptions } from './options.js';
import { ReferenceState } from './reference-state.js';
import { createWorld } from './world/index.js';

export { BASE_PATH, CONTROL_PATH } from './app.js';
export * as control from './control/ops.js';
export type { ReferenceServerOptions } from './options.js';
export { ReferenceState } from './reference-state.js';

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

export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const clock: Clock = options.clock ?? systemClock;
  const resolved = resolveOptions(options, Date.now());
  checkControlExposure(resolved.host, resolved.allowRemoteControl);
  const controlToken = options.controlToken ?? (isLoopbackHost(resolved.host) ? null : randomToken(32));
  registerSecret(controlToken ?? undefined);
  const world = createWorld({ seed: resolved.seed, lateFraction: resolved.lateFraction });
  const state = new ReferenceState(resolved, clock, world);
  const app = buildApp(state, controlToken);
  const listener = withSimulatedDate(withFaults(getRequestListener(app.fetch), state.faults), state.sim);
  const server: Server = createServer(listener);
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
