/** Bootstrap service over HTTP: the phase machine, errors with retry from the failed phase, and the public pipeline. */
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { startReceiver } from './receiver.js';
import { createAccount, expectDetail, expectServed, type Harness, startHarness } from './support.js';

const UNKNOWN = '33333333-3333-4333-8333-333333333333';

describe('bootstrap service', () => {
  let h: Harness;
  let projectId: string;
  beforeEach(async () => {
    h = await startHarness({ backgroundDelayMs: 60_000, services: { allowHttpLoopback: true } });
    projectId = (await h.api('GET', '/projects')).body.data[0].id;
  });
  afterEach(() => h.close());

  const status = async (id = projectId) =>
    expectServed('getBootstrapProject', await h.call('GET', `/api/v2/projects/${id}`));
  const step = (name: string, body: unknown) => h.call('POST', `/api/v1/bootstrap/${name}`, body);
  const init = { brand_name: 'Acme Gardens', url: 'https://acme-gardens.example.com', country: 'de', language: 'DE' };

  it('walks initializing → initialized → processing → analyzed → completed', async () => {
    const seeded = await status();
    expect(seeded).toMatchObject({ id: projectId, status: 'completed', failed_phase: null, error: null });
    expectDetail(await step('prompt', { project_id: projectId }), 409, 'Project must be initialized');

    const started = expectServed('bootstrapInitialize', await step('initialize', { project_id: projectId, ...init }));
    expect(started).toEqual({ project_id: projectId, status: 'initializing' });
    expect((await status()).status).toBe('initializing');
    expectDetail(await step('initialize', { project_id: projectId, ...init }), 409, /already running/);
    expectDetail(await step('complete', { project_id: projectId }), 409, 'Project must be analyzed');

    await h.advance(60);
    const initialized = await status();
    expect(initialized).toMatchObject({
      status: 'initialized',
      brand_name: 'Acme Gardens',
      country: 'DE',
      language: 'de',
    });
    expect(initialized.generated.prompts).toBeGreaterThan(0);
    // The generated prompts are the project's prompts in the public API.
    const prompts = (await h.api('GET', `/projects/${projectId}/prompts`)).body.data.prompts;
    expect(prompts).toHaveLength(initialized.generated.prompts);

    const processing = expectServed('bootstrapPrompt', await step('prompt', { project_id: projectId }));
    expect(processing.status).toBe('processing');
    expect((await status()).status).toBe('processing');
    await h.advance(60);
    expect((await status()).status).toBe('analyzed');
    // The initial answers (one per provider, of the prompts' creation day) are served from `complete` on.
    const chatsOf = async () =>
      (await h.api('GET', `/projects/${projectId}/prompts/${prompts[0].id}/chats`)).body.data.items.length;
    expect(await chatsOf()).toBe(0);
    const done = expectServed('bootstrapComplete', await step('complete', { project_id: projectId }));
    expect(done).toEqual({ project_id: projectId, status: 'completed' });
    expect(await chatsOf()).toBe(3);
    const completed = await status();
    expect(completed.status).toBe('completed');
    expect(completed.history.map((m: { status: string }) => m.status)).toEqual([
      'completed',
      'initializing',
      'initialized',
      'processing',
      'analyzed',
      'completed',
    ]);
    expectDetail(await step('complete', { project_id: projectId }), 409, 'Project must be analyzed');
  });

  it('stops in error with the failed phase, and retries from it', async () => {
    await step('initialize', { project_id: projectId, brand_name: 'Acme', url: 'not a site' });
    await h.advance(60);
    const failed = await status();
    expect(failed).toMatchObject({ status: 'error', failed_phase: 'initialize' });
    expect(failed.error).toMatch(/Could not fetch not a site/);
    expectDetail(await step('prompt', { project_id: projectId }), 409, 'Project must be initialized');
    // Retry the failed phase with a valid site.
    expect((await step('initialize', { project_id: projectId, ...init })).status).toBe(202);
    await h.advance(60);
    expect((await status()).status).toBe('initialized');

    h.services().bootstrap.plannedFailure = { phase: 'analysis', message: 'Provider answers could not be parsed' };
    await step('prompt', { project_id: projectId });
    await h.advance(60);
    expect(await status()).toMatchObject({
      status: 'error',
      failed_phase: 'analysis',
      error: 'Provider answers could not be parsed',
    });
    expectDetail(await step('complete', { project_id: projectId }), 409, 'Project must be analyzed');
    expect((await step('prompt', { project_id: projectId })).status).toBe(202);
    await h.advance(60);
    expect((await status()).status).toBe('analyzed');

    h.services().bootstrap.plannedFailure = { phase: 'complete', message: 'Could not save the project' };
    expect((await step('complete', { project_id: projectId })).body.status).toBe('error');
    expect((await status()).failed_phase).toBe('complete');
    expect((await step('complete', { project_id: projectId })).body.status).toBe('completed');
  });

  it('answers 404 for unknown projects and 400 for bad bodies', async () => {
    expectDetail(await step('initialize', { project_id: UNKNOWN, ...init }), 404, 'Project not found');
    expectDetail(await step('prompt', { project_id: UNKNOWN }), 404, 'Project not found');
    expectDetail(await step('complete', { project_id: UNKNOWN }), 404, 'Project not found');
    expectDetail(await h.call('GET', `/api/v2/projects/${UNKNOWN}`), 404, 'Project not found');
    expectDetail(await h.call('GET', '/api/v2/projects/nope'), 404, 'Project not found');
    expectDetail(
      await step('initialize', { project_id: projectId, url: 'https://x.example.com' }),
      400,
      /^Invalid request/,
    );
    expectDetail(await step('prompt', { project_id: 'nope' }), 400, /^Invalid request/);
    expectDetail(await step('prompt', { project_id: projectId, extra: 1 }), 400, /^Invalid request/);
  });

  it('runs the public POST /account/projects pipeline as the same machine', async () => {
    const callbacks = await startReceiver(systemClock);
    onTestFinished(() => callbacks.close());
    const account = await createAccount(h, 'shop@example.com');
    const keyReply = await h.call('POST', '/api/public/v1/account/api-key', {
      email: account.email,
      password: account.password,
    });
    const key: string = keyReply.body.data.api_key;
    const create = (brand: string) =>
      h.api(
        'POST',
        '/account/projects',
        {
          brand_name: brand,
          brand_url: `https://${brand}.example.com`,
          webhook_url: callbacks.url.replace('https:', 'http:'),
        },
        key,
      );
    const first = (await create('firstbrand')).body.data.project_id;
    expect((await status(first)).status).toBe('initializing');
    // The public pipeline runs when the simulated clock passes the background delay, then sends its callback.
    await h.advance(60);
    const done = await status(first);
    expect(done).toMatchObject({ status: 'completed', team_id: account.team_id, failed_phase: null });
    // One machine: the public pipeline went through every phase of the v1 service, and says so.
    expect(done.history.map((m: { status: string }) => m.status)).toEqual([
      'initializing',
      'initialized',
      'processing',
      'analyzed',
      'completed',
    ]);
    expect(done.history.at(-1).at).toBe(done.updated_at);
    expect(h.state.projects.get(first)?.bootstrap?.status).toBe('completed');
    expect(callbacks.hits.map((hit) => JSON.parse(hit.raw).status)).toEqual(['completed']);
    expect((await h.api('GET', `/projects/${first}/prompts`, undefined, key)).body.data.prompts.length).toBe(
      done.generated.prompts,
    );

    // skip_trial has 10 research credits: the first bootstrap spent them, the second fails in its prompt phase.
    const second = (await create('secondbrand')).body.data.project_id;
    await h.advance(60);
    const broke = await status(second);
    expect(broke).toMatchObject({
      status: 'error',
      failed_phase: 'prompt',
      error: 'Insufficient research credits for the bootstrap',
    });
    expect(broke.history.map((m: { status: string }) => m.status)).toEqual([
      'initializing',
      'initialized',
      'processing',
      'error',
    ]);
    expect(broke.history.at(-1).failed_phase).toBe('prompt');
    expect(callbacks.hits.map((hit) => JSON.parse(hit.raw))).toEqual([
      expect.objectContaining({ project_id: first, status: 'completed', error: null }),
      expect.objectContaining({
        project_id: second,
        status: 'error',
        error: 'Insufficient research credits for the bootstrap',
      }),
    ]);
    // Retried from the failed phase once credits are back (next month), through the v1 service.
    await h.advance(31 * 86_400);
    expect((await step('prompt', { project_id: second })).status).toBe(202);
    await h.advance(60);
    const retried = await status(second);
    expect(retried.status).toBe('analyzed');
    expect(retried.history.slice(-3).map((m: { status: string }) => m.status)).toEqual([
      'error',
      'processing',
      'analyzed',
    ]);
  });
});
