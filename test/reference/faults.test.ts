/** Fault injection: the SPEC grammar, each fault kind over real sockets, path targeting, seeding, and clearing. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFaultSpec, pickFault } from '../../src/reference/faults/spec.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { call, del, get, start } from './support.js';

describe('fault SPEC grammar', () => {
  it('parses kinds, probabilities, parameters and path globs', () => {
    const rules = parseFaultSpec(
      '5xx=0.05,429=0.02:7,reset=0.01,truncate=0.01,slow=0.5:2s@/projects/*/prompts/*/chats',
    );
    expect(rules.map((r) => [r.kind, r.probability, r.param])).toEqual([
      ['5xx', 0.05, 503],
      ['429', 0.02, 7],
      ['reset', 0.01, 0],
      ['truncate', 0.01, 0],
      ['slow', 0.5, 2000],
    ]);
    const slow = rules[4]!;
    expect(slow.pattern?.test('/projects/a/prompts/b/chats')).toBe(true);
    expect(slow.pattern?.test('/projects/a/prompts/b/analytics')).toBe(false);
    expect(() => parseFaultSpec('boom=0.1')).toThrow(/Invalid fault rule/);
    expect(() => parseFaultSpec('5xx=1.5')).toThrow(/probability/);
  });

  it('draws from the seeded PRNG, path rules skipped for other paths', () => {
    const rules = parseFaultSpec('5xx=1@/projects/**,429=1');
    expect(pickFault(rules, '/projects/x/prompts', () => 0.5)?.kind).toBe('5xx');
    expect(pickFault(rules, '/webhooks', () => 0.5)?.kind).toBe('429');
  });
});

describe('faults over HTTP', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('answers a 5xx, then a spurious 429 with Retry-After', async () => {
    control.setFaults(server.state, '5xx=1:502');
    const failed = await get(server, '/projects');
    expect(failed.status).toBe(502);
    control.setFaults(server.state, '429=1:3');
    const limited = await get(server, '/projects');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('3');
    expect(limited.body.detail).toBe('Rate limit exceeded. Retry after 3 seconds.');
    control.setFaults(server.state, null);
    expect((await get(server, '/projects')).status).toBe(200);
  });

  it('resets the connection', async () => {
    control.setFaults(server.state, 'reset=1');
    await expect(get(server, '/projects')).rejects.toThrow(/socket|closed|reset|other side/i);
    control.setFaults(server.state, null);
  });

  it('truncates the JSON body: full Content-Length, half the bytes, then the socket closes', async () => {
    control.setFaults(server.state, 'truncate=1');
    const res = await request(`${server.baseUrl}/projects`, { headers: { 'x-api-key': server.demoApiKey! } });
    expect(res.statusCode).toBe(200);
    const length = Number(res.headers['content-length']);
    expect(length).toBeGreaterThan(100);
    await expect(res.body.text()).rejects.toThrow();
    control.setFaults(server.state, null);
  });

  it('slows responses, only on the targeted path; never faults the control plane', async () => {
    await call(server, 'PUT', '/_reference/faults', { body: { spec: 'slow=1:250ms@/projects/*/prompts' } });
    const projectId = (await get(server, '/projects')).body.data[0].id;
    expect((await get(server, `/projects/${projectId}/prompts`)).status).toBe(200);
    expect((await get(server, '/_reference/faults')).body.fired.slow).toBe(1);
    expect((await get(server, `/projects/${projectId}`)).status).toBe(200);
    expect((await get(server, '/_reference/faults')).body.fired.slow).toBe(1);
    control.setFaults(server.state, '5xx=1');
    expect((await get(server, '/_reference/clock')).status).toBe(200);
    expect((await del(server, '/_reference/faults')).body.spec).toBeNull();
    expect((await get(server, '/projects')).status).toBe(200);
  });

  it('cuts a JSON body half-way in a complete response (its Content-Length matching)', async () => {
    await call(server, 'PUT', '/_reference/faults', { body: { spec: 'cut=1@/projects' } });
    const res = await request(`${server.baseUrl}/projects`, { headers: { 'x-api-key': server.demoApiKey! } });
    const text = await res.body.text();
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(text));
    expect(() => JSON.parse(text)).toThrow();
    control.setFaults(server.state, null);
  });

  it('answers 200 with a null body', async () => {
    await call(server, 'PUT', '/_reference/faults', { body: { spec: 'null=1@/projects' } });
    const res = await request(`${server.baseUrl}/projects`, { headers: { 'x-api-key': server.demoApiKey! } });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('null');
    control.setFaults(server.state, null);
  });

  it('answers every page past the first with the first page (repeat), and a list with its first item twice (dupes)', async () => {
    const projectId = (await get(server, '/projects')).body.data[0].id;
    const sources = (page: number) => get(server, `/projects/${projectId}/sources?page=${page}&page_size=2`);
    const [first, second] = [(await sources(1)).body, (await sources(2)).body];
    expect(second).not.toEqual(first);
    await call(server, 'PUT', '/_reference/faults', { body: { spec: 'repeat=1@/projects/*/sources' } });
    expect((await sources(2)).body).toEqual(first);
    expect((await sources(7)).body).toEqual(first);
    await call(server, 'PUT', '/_reference/faults', { body: { spec: 'dupes=1@/projects' } });
    const listed = (await get(server, '/projects')).body.data as Array<{ id: string }>;
    expect(listed[0]?.id).toBe(listed[1]?.id);
    expect((await get(server, '/_reference/faults')).body.fired.dupes).toBe(1);
    control.setFaults(server.state, null);
  });

  it('fires the same faults for the same seed and request sequence', async () => {
    const run = async () => {
      control.setFaults(server.state, '5xx=0.5');
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) statuses.push((await get(server, '/webhooks')).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
    control.setFaults(server.state, null);
  });
});
