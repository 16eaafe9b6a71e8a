/**
 * Success statuses are the spec's: it writes `202 B` (project create) and `201 A` (webhook create) where it means
 * them; every other public row gives only the envelope, and answers 200 with the message `200 OK`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints } from '../../src/api/index.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { post, start } from './support.js';

describe('success statuses', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('are 200 on every public endpoint but the two the spec names', () => {
    const other = allEndpoints()
      .filter((e) => e.service === 'public' && e.successStatus !== 200)
      .map((e) => `${e.id} ${e.successStatus}`)
      .sort();
    expect(other).toEqual(['createProject 202', 'createWebhook 201']);
  });

  it('answer account and key creation with 200 OK over HTTP', async () => {
    const account = await post(server, '/account/create', { email: 'status@example.com' }, null);
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ code: 200, message: '200 OK' });
    const key = await post(
      server,
      '/account/api-key',
      { email: 'status@example.com', password: account.body.data.password },
      null,
    );
    expect(key.status).toBe(200);
    expect(key.body).toMatchObject({ code: 200, message: '200 OK' });
  });
});
