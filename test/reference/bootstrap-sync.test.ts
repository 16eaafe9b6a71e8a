/**
 * The client's side of issue 14 item 1: the sync that follows a bootstrap callback lands the bootstrap day's
 * answers of the new project (the prompts' creation day is their first day), with the ids the API serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { configureServices } from '../../src/reference/services/registry.js';
import { TODAY } from '../fixtures.js';
import { openWarehouse, query, runSync, startWorld, tempDir } from '../sync/support.js';
import { type Receiver, startReceiver } from './services/receiver.js';
import { get, type Json, post } from './support.js';

describe('vwh sync after a bootstrap', () => {
  let server: ReferenceServer;
  let tmp: ReturnType<typeof tempDir>;
  let hook: Receiver;
  beforeAll(async () => {
    server = await startWorld({ seed: 23, projects: 1, prompts: 2, historyDays: 3, backgroundDelayMs: 60_000 });
    configureServices(server.state, { allowHttpLoopback: true });
    hook = await startReceiver(systemClock);
    tmp = tempDir();
  });
  afterAll(async () => {
    await server.close();
    await hook.close();
    tmp.cleanup();
  });

  it('lands the bootstrap day answers of the new project at the next run', async () => {
    const account = (await post(server, '/account/create', { email: 'sync@example.com' }, null)).body.data;
    const key = (
      await post(server, '/account/api-key', { email: 'sync@example.com', password: account.password }, null)
    ).body.data.api_key as string;
    const body = { brand_name: 'Quill Lamps', brand_url: 'https://quill-lamps.example', webhook_url: hook.url };
    const projectId = (await post(server, '/account/projects', body, key)).body.data.project_id as string;
    await post(server, '/_reference/clock', { advance_seconds: 120 });
    expect((await get(server, `/_reference/projects/${projectId}/bootstrap`)).body.status).toBe('completed');

    const served = new Set<string>();
    const prompts = (await get(server, `/projects/${projectId}/prompts`, key)).body.data.prompts as Json[];
    for (const p of prompts) {
      const items = (await get(server, `/projects/${projectId}/prompts/${p.id}/chats`, key)).body.data.items as Json[];
      for (const chat of items) served.add(chat.id);
    }
    expect(served.size).toBe(prompts.length * 3);

    const wh = await openWarehouse(tmp.db);
    try {
      const result = await runSync(server, wh, { teamId: account.team_id, apiKey: key });
      expect(result.status).toBe('succeeded');
      const rows = await query<{ id: string; day: string }>(
        wh,
        `SELECT id, strftime(chat_date, '%Y-%m-%d') AS day FROM raw.chats WHERE project_id = '${projectId}'`,
      );
      expect(new Set(rows.map((r) => r.id))).toEqual(served);
      expect(rows.every((r) => r.day === TODAY)).toBe(true);
    } finally {
      wh.close();
    }
  });
});
