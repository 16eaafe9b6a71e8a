/** Recorded URLs, actions (with the status extension) and webhook registrations. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Action } from '../../src/api/index.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { call, del, expectError, expectServed, firstProject, get, patch, post, start } from './support.js';

describe('recorded URLs', () => {
  let server: ReferenceServer;
  let url: string;
  beforeAll(async () => {
    server = await start();
    url = `/projects/${(await firstProject(server)).projectId}/recording`;
  });
  afterAll(() => server.close());

  it('records URLs (normalized, title fetched in the background), lists and removes them', async () => {
    const added = expectServed(
      'recordUrls',
      await post(server, url, {
        urls: [
          { url: 'https://WWW.Shop.example/bikes/road-bikes/?utm_source=x#top' },
          { url: 'https://shop.example/about', title: 'About us' },
        ],
      }),
    );
    expect(added).toMatchObject({ affected_count: 2, total_recorded: 2 });
    const again = expectServed(
      'recordUrls',
      await post(server, url, { urls: [{ url: 'https://shop.example/bikes/road-bikes' }] }),
    );
    expect(again.affected_count).toBe(0);
    const list = expectServed('listRecordedUrls', await get(server, url));
    expect(list.urls[0]).toMatchObject({ normalized_url: 'https://shop.example/bikes/road-bikes', title: '' });
    await post(server, '/_reference/clock', { advance_seconds: 60 });
    expect((await get(server, url)).body.data.urls[0].title).toBe('Road bikes');
    const removed = expectServed(
      'removeRecordedUrls',
      await del(server, url, { urls: ['https://shop.example/about'] }),
    );
    expect(removed).toMatchObject({ affected_count: 1, total_recorded: 1 });
  });

  it('answers 400 on bad bodies', async () => {
    expectError(await post(server, url, { urls: [] }), 400, 'urls must hold 1-50 items');
    expectError(
      await post(server, url, { urls: Array.from({ length: 51 }, (_, i) => ({ url: `https://a.example/${i}` })) }),
      400,
      'urls must hold 1-50 items',
    );
    expectError(await post(server, url, { urls: [{ url: 'notaurl' }] }), 400);
    expectError(await del(server, url, {}), 400, 'urls must hold 1-50 items');
  });
});

describe('actions', () => {
  let server: ReferenceServer;
  let base: string;
  const body = {
    title: 'Publish a comparison page',
    description: 'Compare our bikes with the market leaders.',
    category: 'new_content',
    priority: 'high',
    execution: { type: 'publishable_content', prompt: 'Write it', skill: null },
    targets: [{ type: 'keyword', value: 'road bike comparison' }],
    effort: 'major',
    expected_impact_min: 2,
    expected_impact_max: 6,
  };
  beforeAll(async () => {
    server = await start();
    base = `/projects/${(await firstProject(server)).projectId}/actions`;
  });
  afterAll(() => server.close());

  it('creates an action with status suggested, gets it, lists it with filters', async () => {
    const created = expectServed('createAction', await post(server, base, body));
    expect(created).toMatchObject({ status: 'suggested', title: body.title, category: 'new_content', depends_on: [] });
    expect(expectServed('getAction', await get(server, `${base}/${created.id}`))).toEqual(created);
    const suggested = expectServed('listActions', await get(server, `${base}?status=suggested`));
    expect(suggested.some((a: { id: string }) => a.id === created.id)).toBe(true);
    expect(suggested.every((a: { status: string }) => a.status === 'suggested')).toBe(true);
    const completed = expectServed('listActions', await get(server, `${base}?status=completed`));
    expect(completed.every((a: { status: string }) => a.status === 'completed')).toBe(true);
    expect(expectServed('listActions', await get(server, `${base}?group=no-such-group`))).toEqual([]);
    expectError(await get(server, `${base}?status=done`), 400, /^Invalid request/);
  });

  it('answers 404 for an unknown action and 400 for invalid creates and enrich', async () => {
    expectError(await get(server, `${base}/00000000-0000-4000-8000-00000000000a`), 404, 'Action not found');
    expectError(await post(server, base, { ...body, category: 'blog' }), 400, 'Invalid action');
    expectError(await post(server, base, { ...body, priority: 'urgent' }), 400, 'Invalid action');
    expectError(await post(server, base, { ...body, execution: { type: 'robot' } }), 400, 'Invalid action');
    expectError(await post(server, base, { ...body, title: undefined }), 400, 'Invalid action');
    expectError(await post(server, `${base}/enrich`, {}), 400, 'action_type is missing or invalid');
    expectError(
      await post(server, `${base}/enrich`, { action_type: 'blog' }),
      400,
      'action_type is missing or invalid',
    );
  });

  it('enriches an action brief into action fields', async () => {
    const data = expectServed(
      'enrichAction',
      await post(server, `${base}/enrich`, {
        action_type: 'content_update',
        target_url: 'https://shop.example/bikes',
        keywords: ['gravel'],
      }),
    );
    expect(data.targets).toEqual([
      { type: 'url', value: 'https://shop.example/bikes' },
      { type: 'keyword', value: 'gravel' },
    ]);
  });

  it('moves an action along its workflow with the PATCH extension, recording completed_at', async () => {
    const created = (await post(server, base, body)).body.data;
    const url = `${base}/${created.id}`;
    expect((await patch(server, url, { status: 'accepted' })).body.data.status).toBe('accepted');
    await post(server, '/_reference/clock', { advance_seconds: 3600 });
    const done = await patch(server, url, { status: 'completed' });
    expect(Action.parse(done.body.data).status).toBe('completed');
    expect(done.body.data.completed_at).toBe(done.body.data.updated_at);
    expect(done.body.data.updated_at > created.updated_at).toBe(true);
    expectError(await patch(server, url, { status: 'in_progress' }), 409);
    expectError(await patch(server, url, { status: 'nope' }), 400);
    expect(
      (await get(server, `${base}?status=completed`)).body.data.some((a: { id: string }) => a.id === created.id),
    ).toBe(true);
  });
});

describe('webhooks', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('registers an HTTPS webhook (secret once), lists it without secret, deletes it', async () => {
    const created = expectServed(
      'createWebhook',
      await post(server, '/webhooks', {
        url: 'https://hooks.example.com/a',
        events: ['action.completed', 'action.failed'],
      }),
    );
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(/^whsec_/);
    const list = expectServed('listWebhooks', await get(server, '/webhooks'));
    expect(list).toHaveLength(1);
    expect(list[0].secret).toBeUndefined();
    expectError(
      await post(server, '/webhooks', { url: 'https://hooks.example.com/a', events: ['action.checkpoint'] }),
      409,
      'Webhook URL already registered',
    );
    expect(expectServed('deleteWebhook', await call(server, 'DELETE', `/webhooks/${created.id}`)).id).toBe(created.id);
    expectError(await call(server, 'DELETE', `/webhooks/${created.id}`), 404, 'Webhook not found');
    const again = expectServed(
      'createWebhook',
      await post(server, '/webhooks', { url: 'https://hooks.example.com/a', events: ['action.completed'] }),
    );
    expect(again.secret).not.toBe(created.secret);
  });

  it('answers 400 on a missing url, a non-HTTPS url, empty events and an invalid event', async () => {
    expectError(await post(server, '/webhooks', { events: ['action.completed'] }), 400, 'Invalid webhook');
    expectError(
      await post(server, '/webhooks', { url: 'http://hooks.example.com/b', events: ['action.completed'] }),
      400,
      'Invalid webhook',
    );
    expectError(
      await post(server, '/webhooks', { url: 'https://hooks.example.com/b', events: [] }),
      400,
      'Invalid webhook',
    );
    expectError(
      await post(server, '/webhooks', { url: 'https://hooks.example.com/b', events: ['project.bootstrap'] }),
      400,
      'Invalid webhook',
    );
  });
});
