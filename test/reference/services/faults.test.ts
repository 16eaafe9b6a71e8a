/**
 * What the services share with the public API, over HTTP: the server's fault injection (its path globs reach
 * /api/v1 and /api/v2), the simulated clock, the seed; and the services' own failure switches on the control plane
 * (`/_reference/services/faults`), through which LLM_ERROR, WORKFLOW_ERROR and DATABASE_ERROR are reached from outside.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { expectContentError, expectDetail, expectServed, type Harness, startHarness } from './support.js';

const SWITCH = '/_reference/services/faults';
// 70 s of background delay: a task's 7 steps are 10 s each on the simulated clock.
const TASK_S = 70;

describe('service failure switches (control plane)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ backgroundDelayMs: 70_000 });
  });
  afterEach(() => h.close());

  const create = (prompt: string) => h.call('POST', '/api/v1/tasks', { user_prompt: prompt });

  it('fails the next task with LLM_ERROR or WORKFLOW_ERROR in the phase asked for, once', async () => {
    const off = await h.call('GET', SWITCH);
    expect(off.body).toEqual({
      content: { next_failure: null, storage_outage: false },
      bootstrap: { next_failure: null },
      workflows: { next_failure: null },
    });
    const set = await h.call('PUT', SWITCH, { content: { next_failure: { phase: 'drafting', code: 'LLM_ERROR' } } });
    expect(set.status).toBe(200);
    expect(set.body.content.next_failure).toEqual({
      phase: 'drafting',
      code: 'LLM_ERROR',
      message: 'The language model failed during drafting',
    });
    const llm = (await create('Doomed by the model')).body.task_id;
    // The switch applies once: the next task is healthy.
    expect((await h.call('GET', SWITCH)).body.content.next_failure).toBeNull();
    const healthy = (await create('Healthy')).body.task_id;

    await h.call('PUT', SWITCH, {
      content: { next_failure: { phase: 'reference_extraction', code: 'WORKFLOW_ERROR', message: 'Fetch failed' } },
    });
    const wf = (await create('Doomed by the pipeline')).body.task_id;
    await h.advance(TASK_S);

    const failed = expectServed('getTask', await h.call('GET', `/api/v1/tasks/${llm}`));
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'LLM_ERROR', message: 'The language model failed during drafting' },
    });
    expectContentError(await h.call('GET', `/api/v1/tasks/${llm}/articles`), 502, 'LLM_ERROR');
    expect((await h.call('GET', `/api/v1/tasks/${wf}`)).body.error).toEqual({
      code: 'WORKFLOW_ERROR',
      message: 'Fetch failed',
    });
    expectContentError(await h.call('GET', `/api/v1/tasks/${wf}/articles`), 500, 'WORKFLOW_ERROR');
    expect((await h.call('GET', `/api/v1/tasks/${healthy}`)).body.status).toBe('completed');
    expect((await h.call('GET', '/api/v1/tasks?status=failed')).body.total).toBe(2);
  });

  it('answers 503 DATABASE_ERROR on every content endpoint while storage is out, and nothing else', async () => {
    const id = (await create('Before the outage')).body.task_id;
    await h.call('PUT', SWITCH, { content: { storage_outage: true } });
    const unknown = '66666666-6666-4666-8666-666666666666';
    for (const [method, path, body] of [
      ['POST', '/api/v1/tasks', { user_prompt: 'x' }],
      ['GET', '/api/v1/tasks', undefined],
      ['GET', `/api/v1/tasks/${id}`, undefined],
      ['DELETE', `/api/v1/tasks/${id}`, undefined],
      ['GET', `/api/v1/tasks/${id}/articles`, undefined],
      ['GET', '/api/v1/articles', undefined],
      ['GET', `/api/v1/articles/${unknown}`, undefined],
      ['PATCH', `/api/v1/articles/${unknown}`, { title: 'x' }],
      ['DELETE', `/api/v1/articles/${unknown}`, undefined],
    ] as const) {
      expectContentError(await h.call(method, path, body), 503, 'DATABASE_ERROR');
    }
    // The other services keep answering.
    expect((await h.call('GET', `/api/v2/projects/${(await h.api('GET', '/projects')).body.data[0].id}`)).status).toBe(
      200,
    );
    expect((await h.call('DELETE', SWITCH)).body.content.storage_outage).toBe(false);
    expect((await h.call('GET', `/api/v1/tasks/${id}`)).body.status).toBe('pending');
  });

  it('fails the next run of a bootstrap phase and the next production of a workflow stage', async () => {
    const projectId = (await h.api('GET', '/projects')).body.data[0].id;
    const set = await h.call('PUT', SWITCH, {
      bootstrap: { next_failure: { phase: 'initialize', message: 'Site unreachable' } },
      workflows: { next_failure: { checkpoint: 'draft' } },
    });
    expect(set.body.bootstrap.next_failure).toEqual({ phase: 'initialize', message: 'Site unreachable' });
    expect(set.body.workflows.next_failure).toEqual({ checkpoint: 'draft', message: 'Producing the draft failed' });
    await h.call('POST', '/api/v1/bootstrap/initialize', {
      project_id: projectId,
      brand_name: 'Acme',
      url: 'https://acme.example.com',
    });
    await h.advance(70);
    expect((await h.call('GET', `/api/v2/projects/${projectId}`)).body).toMatchObject({
      status: 'error',
      failed_phase: 'initialize',
      error: 'Site unreachable',
    });
    expect(h.services().workflows.plannedFailure?.checkpoint).toBe('draft');
    await h.call('PUT', SWITCH, { workflows: { next_failure: null } });
    expect(h.services().workflows.plannedFailure).toBeNull();
  });

  it('refuses a malformed switch', async () => {
    for (const body of [
      { content: { next_failure: { phase: 'typing', code: 'LLM_ERROR' } } },
      { content: { next_failure: { phase: 'drafting', code: 'DATABASE_ERROR' } } },
      { content: { storage_outage: 'yes' } },
      { bootstrap: { next_failure: { phase: 'launch' } } },
      { workflows: { next_failure: { checkpoint: 'final review' } } },
      { everything: true },
    ]) {
      expectDetail(await h.call('PUT', SWITCH, body), 400);
    }
    expectDetail(await h.call('PUT', SWITCH, '{nope'), 400);
    expect((await h.call('GET', SWITCH)).body.content.next_failure).toBeNull();
  });
});

describe('shared with the public API', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('applies the server fault injection to /api/v1 and /api/v2 paths by glob', async () => {
    h = await startHarness({ demo: false });
    expect((await h.call('PUT', '/_reference/faults', { spec: '5xx=1:500@/api/v1/**' })).status).toBe(200);
    const faulted = await h.call('GET', '/api/v1/tasks');
    expect(faulted.status).toBe(500);
    expect(faulted.body.detail).toMatch(/injected fault/);
    expect((await h.call('GET', '/api/v2/teams/me?user_id=11111111-1111-4111-8111-111111111111')).status).toBe(404);
    expect((await h.call('GET', '/_reference/faults')).body.fired['5xx']).toBe(1);

    await h.call('PUT', '/_reference/faults', { spec: 'reset=1@/api/v2/**' });
    await expect(h.call('GET', '/api/v2/teams/me?user_id=11111111-1111-4111-8111-111111111111')).rejects.toThrow();
    expect((await h.call('GET', '/api/v1/tasks')).status).toBe(200);
    await h.call('DELETE', '/_reference/faults');
    expect((await h.call('GET', '/api/v2/teams/me?user_id=11111111-1111-4111-8111-111111111111')).status).toBe(404);
  });

  it('stamps tasks, articles and bootstrap moves with the simulated clock', async () => {
    // A manual clock stands the simulated time still between calls, so stamps can be compared exactly.
    h = await startHarness({ backgroundDelayMs: 70_000, clock: new ManualClock(Date.UTC(2026, 2, 15, 12)) });
    const now = async () => (await h.call('GET', '/_reference/clock')).body.now as string;
    await h.advance(3 * 86_400);
    const created = await now();
    const id = (await h.call('POST', '/api/v1/tasks', { user_prompt: 'Clocked' })).body.task_id;
    expect((await h.call('GET', `/api/v1/tasks/${id}`)).body.created_at).toBe(created);
    await h.advance(TASK_S);
    const task = (await h.call('GET', `/api/v1/tasks/${id}`)).body;
    expect(Date.parse(task.completed_at) - Date.parse(created)).toBe(TASK_S * 1000);
    const [article] = (await h.call('GET', `/api/v1/tasks/${id}/articles`)).body.articles;
    expect(article.created_at).toBe(task.completed_at);
    await h.advance(60);
    const published = (
      await h.call('PATCH', `/api/v1/articles/${article.article_id}`, { publication_status: 'published' })
    ).body;
    expect(published.published_at).toBe(await now());

    const projectId = (await h.api('GET', '/projects')).body.data[0].id;
    await h.call('POST', '/api/v1/bootstrap/initialize', {
      project_id: projectId,
      brand_name: 'Acme',
      url: 'https://acme.example.com',
    });
    expect((await h.call('GET', `/api/v2/projects/${projectId}`)).body.updated_at).toBe(await now());
  });

  it('writes the same article for the same seed and another for another seed', async () => {
    const articleWith = async (seed: number) => {
      const server = await startHarness({ demo: false, seed, backgroundDelayMs: 7_000 });
      try {
        const id = (await server.call('POST', '/api/v1/tasks', { user_prompt: 'Seeded text', max_words: 300 })).body
          .task_id;
        await server.advance(7);
        return (await server.call('GET', `/api/v1/tasks/${id}/articles`)).body.articles[0].content as string;
      } finally {
        await server.close();
      }
    };
    h = await startHarness({ demo: false });
    const a = await articleWith(5);
    expect(await articleWith(5)).toBe(a);
    expect(await articleWith(6)).not.toBe(a);
  });
});
