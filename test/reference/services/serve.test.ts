/**
 * The services are served by the process `vwh serve` starts (`startReferenceServer`, the same listener, fault
 * injection and control plane), not only by the test harness: one request per service over real HTTP.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoint } from '../../../src/api/index.js';
import { type ReferenceServer, startReferenceServer } from '../../../src/reference/index.js';

describe('services in the vwh serve process', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, seed: 3, today: '2026-03-15', demo: true, projects: 1, prompts: 3 });
  });
  afterAll(() => server.close());

  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const headers: Record<string, string> = {};
    if (key) headers['x-api-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(server.url + path, {
      method: method as 'GET',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };

  it('answers the content, bootstrap and team services, their control switch and the workflow extension', async () => {
    const created = await call('POST', '/api/v1/tasks', { user_prompt: 'Served by vwh serve' });
    expect(created.status).toBe(202);
    const list = await call('GET', '/api/v1/tasks');
    expect(endpoint('listTasks').servedResponse.safeParse(list.body).success).toBe(true);
    expect(list.body.total).toBe(1);

    const project = (await call('GET', '/api/public/v1/projects', undefined, server.demoApiKey)).body.data as Array<{
      id: string;
    }>;
    const status = await call('GET', `/api/v2/projects/${project[0]?.id}`);
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('completed');
    expect((await call('GET', '/api/v2/teams/me')).status).toBe(400);
    expect((await call('GET', '/_reference/services/faults')).body).toHaveProperty('content');

    const unknownAction = `/api/public/v1/projects/${project[0]?.id}/actions/44444444-4444-4444-8444-444444444444/execute`;
    expect((await call('POST', unknownAction)).status).toBe(401);
    expect(await call('POST', unknownAction, undefined, server.demoApiKey)).toEqual({
      status: 404,
      body: { detail: 'Action not found' },
    });
  });
});
