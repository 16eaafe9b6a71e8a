/** Prompts: list, get, create, update, suggested generation, URL recommendations, and their error rows. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { expectError, expectServed, firstProject, get, patch, post, start } from './support.js';

describe('prompts', () => {
  let server: ReferenceServer;
  let projectId: string;
  let promptId: string;
  let topicId: string;
  beforeAll(async () => {
    server = await start();
    ({ projectId, promptId, topicId } = await firstProject(server));
  });
  afterAll(() => server.close());

  it('lists prompts by creation date and gets one with the same fields', async () => {
    const list = expectServed('listPrompts', await get(server, `/projects/${projectId}/prompts`));
    expect(list.total).toBe(list.prompts.length);
    const dates = list.prompts.map((p: { created_at: string }) => p.created_at);
    expect([...dates].sort()).toEqual(dates);
    const one = expectServed('getPrompt', await get(server, `/projects/${projectId}/prompts/${promptId}`));
    expect(one).toEqual(list.prompts.find((p: { id: string }) => p.id === promptId));
    expectError(
      await get(server, `/projects/${projectId}/prompts/00000000-0000-4000-8000-000000000001`),
      404,
      'Prompt not found',
    );
  });

  it('creates prompts (envelope B, camelCase, type Active) that are listed at once', async () => {
    const res = await post(server, `/projects/${projectId}/prompts`, {
      prompts: ['Which road bike is lightest?'],
      topicId,
      country: 'de',
    });
    const data = expectServed('createPrompts', res);
    expect(res.body).toMatchObject({ code: 200, message: '200 OK' });
    expect(data.created).toBe(1);
    expect(data.prompts[0]).toMatchObject({
      projectId,
      promptType: 'Active',
      topicId,
      country: 'DE',
      content: 'Which road bike is lightest?',
    });
    const list = (await get(server, `/projects/${projectId}/prompts`)).body.data.prompts;
    expect(list.at(-1)).toMatchObject({ id: data.prompts[0].id, prompt_type: 'active' });
  });

  it('answers the prompt-create error rows', async () => {
    const url = `/projects/${projectId}/prompts`;
    const invalid = 'prompts must hold 1-50 non-empty texts and topicId is required';
    expectError(await post(server, url, { prompts: [], topicId }), 400, invalid);
    expectError(await post(server, url, { prompts: ['   '], topicId }), 400, invalid);
    expectError(await post(server, url, { prompts: ['fine text'] }), 400, invalid);
    expectError(
      await post(server, url, { prompts: Array.from({ length: 51 }, (_, i) => `p${i}`), topicId }),
      400,
      invalid,
    );
    expectError(
      await post(server, url, { prompts: ['which ROAD bike is lightest?  '], topicId }),
      409,
      'A prompt with this content already exists in the project',
    );
    // Quota: the demo team is on enterprise (5000 tracked prompts); a skip_trial team has 50.
    const teamId = server.state.demo!.teamId;
    await post(server, `/_reference/teams/${teamId}/plan`, { plan: 'skip_trial' });
    const many = Array.from({ length: 50 }, (_, i) => `quota prompt ${i}`);
    expectError(await post(server, url, { prompts: many, topicId }), 429, 'Prompt quota exceeded for your plan');
    await post(server, `/_reference/teams/${teamId}/plan`, { plan: 'enterprise' });
  });

  it('updates a prompt (camelCase, all fields) and records type changes', async () => {
    const url = `/projects/${projectId}/prompts/${promptId}`;
    const res = await patch(server, url, { promptType: 'Inactive', country: 'fr' });
    const data = expectServed('updatePrompt', res);
    expect(data).toMatchObject({ id: promptId, projectId, promptType: 'Inactive', country: 'FR' });
    expect((await get(server, url)).body.data.prompt_type).toBe('inactive');
    expect(expectServed('updatePrompt', await patch(server, url, { promptType: 'Active' })).promptType).toBe('Active');
  });

  it('answers the prompt-update error rows', async () => {
    const url = `/projects/${projectId}/prompts/${promptId}`;
    expectError(await patch(server, url, {}), 400, 'Nothing to update');
    expectError(await patch(server, url, { content: '   ' }), 400, 'Nothing to update');
    expectError(await patch(server, url, { promptType: 'Active' }), 400, 'Nothing to update');
    expectError(await patch(server, url, { promptType: 'UrlRecommended' }), 400, 'Nothing to update');
    expectError(
      await patch(server, `/projects/${projectId}/prompts/00000000-0000-4000-8000-000000000002`, { content: 'x' }),
      404,
      'Prompt not found',
    );
  });

  it('queues suggested prompts as empty placeholders, filled when the clock passes them; idempotency keys replay', async () => {
    const url = `/projects/${projectId}/prompts/suggested`;
    const first = await post(server, url, { count: 3, idempotencyKey: 'batch-1' });
    const data = expectServed('suggestPrompts', first);
    expect(first.body).toMatchObject({ code: 200, message: '200 OK' });
    expect(data.createdCount).toBe(3);
    expect(
      data.prompts.every(
        (p: { content: string; promptType: string }) => p.content === '' && p.promptType === 'Suggested',
      ),
    ).toBe(true);
    const replay = await post(server, url, { count: 3, idempotencyKey: 'batch-1' });
    expect(replay.body.data).toEqual(data);

    const ids = new Set(data.prompts.map((p: { promptId: string }) => p.promptId));
    const suggested = () =>
      get(server, `/projects/${projectId}/prompts`).then((r) =>
        r.body.data.prompts.filter((p: { id: string }) => ids.has(p.id)),
      );
    expect((await suggested()).every((p: { content: string }) => p.content === '')).toBe(true);
    await post(server, '/_reference/clock', { advance_seconds: 90 });
    const filled = await suggested();
    expect(filled).toHaveLength(3);
    expect(
      filled.every(
        (p: { content: string; prompt_type: string }) => p.content.length > 0 && p.prompt_type === 'suggested',
      ),
    ).toBe(true);
    const overview = expectServed(
      'getOverview',
      await get(server, `/projects/${projectId}/overview?prompt_type=suggested`),
    );
    expect(overview.items.length).toBeGreaterThanOrEqual(3);
  });

  it('answers suggested-generation and URL-recommendation errors', async () => {
    expectError(await post(server, `/projects/${projectId}/prompts/suggested`, { count: 0 }), 400, 'Invalid request');
    expectError(await post(server, `/projects/${projectId}/prompts/suggested`, { count: 51 }), 400, 'Invalid request');
    expectError(
      await post(server, `/projects/${projectId}/prompts/suggested`, { generationMethod: 'other' }),
      400,
      'Invalid request',
    );
    const recs = `/projects/${projectId}/prompts/url-recommendations`;
    expectError(await post(server, recs, { urls: [] }), 400, 'urls must hold 1-5 URLs');
    expectError(
      await post(server, recs, {
        urls: [
          'https://a.example',
          'https://b.example',
          'https://c.example',
          'https://d.example',
          'https://e.example',
          'https://f.example',
        ],
      }),
      400,
      'urls must hold 1-5 URLs',
    );
    expectError(await post(server, recs, { urls: ['https://a.example'], count: 21 }), 400, 'urls must hold 1-5 URLs');
  });

  it('creates URL-recommended placeholders (default 5) and counts recorded URLs as db matches', async () => {
    await post(server, `/projects/${projectId}/recording`, {
      urls: [{ url: 'https://www.Example.com/guide/', title: 'Guide' }],
    });
    const res = await post(server, `/projects/${projectId}/prompts/url-recommendations`, {
      urls: ['https://example.com/guide', 'https://other.example/x'],
    });
    const data = expectServed('recommendPromptsFromUrls', res);
    expect(data).toMatchObject({ projectId, urlsProvided: 2, dbMatches: 1, placeholdersCreated: 5 });
    await post(server, '/_reference/clock', { advance_seconds: 90 });
    const list = (await get(server, `/projects/${projectId}/prompts`)).body.data.prompts;
    const recommended = list.filter((p: { prompt_type: string }) => p.prompt_type === 'url_recommended');
    expect(recommended).toHaveLength(5);
    expect(recommended.every((p: { content: string }) => p.content.length > 0)).toBe(true);
  });
});

describe('background work on the injected clock, and research credits', () => {
  it('fills placeholders once backgroundDelayMs of injected-Clock time has passed, not before', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 15, 6));
    const server = await start({ clock, backgroundDelayMs: 2000 });
    try {
      const { projectId } = await firstProject(server);
      const data = (await post(server, `/projects/${projectId}/prompts/suggested`, { count: 2 })).body.data;
      const contents = async () => {
        const list = (await get(server, `/projects/${projectId}/prompts`)).body.data.prompts;
        const ids = new Set(data.prompts.map((p: { promptId: string }) => p.promptId));
        return list.filter((p: { id: string }) => ids.has(p.id)).map((p: { content: string }) => p.content);
      };
      await clock.advance(1999);
      await server.state.background.idle();
      expect(await contents()).toEqual(['', '']);
      await clock.advance(1);
      await server.state.background.idle();
      expect((await contents()).every((c: string) => c.length > 0)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('charges credits for the bootstrap only: a fresh skip_trial account can still call every generation endpoint', async () => {
    const server = await start();
    try {
      const account = (await post(server, '/account/create', { email: 'fresh@example.com' }, null)).body.data;
      const key = (await post(server, '/account/api-key', { email: account.email, password: account.password }, null))
        .body.data.api_key;
      expect((await get(server, '/projects', key)).headers['x-credit-available']).toBe('10');
      const created = await post(
        server,
        '/account/projects',
        { brand_name: 'Fresh', brand_url: 'https://fresh.example.com', webhook_url: 'https://hooks.example.com/fresh' },
        key,
      );
      expect(created.status).toBe(202);
      // The reduced bootstrap (3 prompts × 3 providers) runs when the clock passes the background delay.
      await post(server, '/_reference/clock', { advance_seconds: 120 });
      for (let i = 0; i < 100 && (await get(server, '/projects', key)).headers['x-credit-available'] !== '1'; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await get(server, '/projects', key)).headers['x-credit-available']).toBe('1');
      const projectId = created.body.data.project_id;
      const calls = [
        await post(server, `/projects/${projectId}/prompts/suggested`, { count: 2 }, key),
        await post(server, `/projects/${projectId}/prompts/url-recommendations`, { urls: ['https://u.example'] }, key),
        await post(server, `/projects/${projectId}/actions/enrich`, { action_type: 'new_content' }, key),
      ];
      expect(calls.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(calls.at(-1)?.headers['x-credit-available']).toBe('1');
      // A new simulated month brings the plan's credits back.
      await post(server, '/_reference/clock', { advance_days: 20 });
      expect((await get(server, '/projects', key)).headers['x-credit-available']).toBe('10');
    } finally {
      await server.close();
    }
  });
});
