/** Every response's `Date` header is the simulated clock's: a client learns the API's day from it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { call, get, post, start } from './support.js';

const dayOf = (header: unknown) => new Date(String(header)).toISOString().slice(0, 10);

describe('Date header', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start({ today: TODAY, clock: new ManualClock(), faults: '5xx=1@/projects/*/topics' });
  });
  afterAll(() => server.close());

  it('carries the simulated day on success, error, service, control-plane and injected-fault answers', async () => {
    const projects = await get(server, '/projects');
    expect(projects.status).toBe(200);
    // Simulated now starts at 06:00 UTC of --today, far from the machine's date.
    expect(dayOf(projects.headers.date)).toBe(TODAY);
    expect(new Date(String(projects.headers.date)).getUTCHours()).toBe(6);
    expect(dayOf((await get(server, '/projects', null)).headers.date)).toBe(TODAY);
    expect(dayOf((await get(server, '/api/v1/tasks')).headers.date)).toBe(TODAY);
    expect(dayOf((await get(server, '/_reference/clock')).headers.date)).toBe(TODAY);
    const project = projects.body.data[0].id;
    const faulted = await get(server, `/projects/${project}/topics`);
    expect(faulted.status).toBeGreaterThanOrEqual(500);
    expect(dayOf(faulted.headers.date)).toBe(TODAY);
  });

  it('follows the control plane when it moves the clock', async () => {
    await post(server, '/_reference/clock', { advance_days: 3, advance_seconds: 7 });
    const reply = await call(server, 'GET', '/projects');
    expect(dayOf(reply.headers.date)).toBe('2026-03-18');
    expect(Date.parse(String(reply.headers.date))).toBe(Date.parse((await get(server, '/_reference/clock')).body.now));
  });
});
