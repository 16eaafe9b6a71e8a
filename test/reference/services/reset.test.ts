/** The services follow the reference server's reset: tasks, articles, memberships and workflows start afresh. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Harness, startHarness } from './support.js';

describe('reset', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ demo: false, backgroundDelayMs: 7_000 });
  });
  afterAll(() => h.close());

  it('empties the services when the control plane resets the server', async () => {
    const task = (await h.call('POST', '/api/v1/tasks', { user_prompt: 'Before reset' })).body.task_id;
    const owner = await createAccount(h, 'reset@example.com');
    await h.call('POST', `/api/v2/teams/${owner.team_id}/members`, { user_id: owner.user_id, email: 'x@example.com' });
    const before = h.services();
    expect((await h.call('GET', '/api/v1/tasks')).body.total).toBe(1);
    await h.call('PUT', '/_reference/services/faults', {
      content: { storage_outage: true, next_failure: { phase: 'outline', code: 'LLM_ERROR' } },
    });
    expect((await h.call('GET', '/api/v1/tasks')).status).toBe(503);

    expect((await h.call('POST', '/_reference/reset')).status).toBe(200);
    expect(h.services()).not.toBe(before);
    expect((await h.call('GET', '/api/v1/tasks')).body.total).toBe(0);
    // The failure switches went with the rest.
    expect((await h.call('GET', '/_reference/services/faults')).body.content).toEqual({
      next_failure: null,
      storage_outage: false,
    });
    expect((await h.call('GET', `/api/v1/tasks/${task}`)).status).toBe(404);
    expect(h.services().membership.outbox).toEqual([]);
    expect((await h.call('GET', `/api/v2/teams/me?user_id=${owner.user_id}`)).status).toBe(404);
  });
});
