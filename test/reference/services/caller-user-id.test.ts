/**
 * "Requests identify the caller with a `user_id` parameter or body field": every content, bootstrap and team
 * endpoint takes `user_id` from the query or the body. Other unknown body keys stay refused.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  createAccount,
  expectContentError,
  expectDetail,
  expectServed,
  type Harness,
  startHarness,
} from './support.js';

describe('user_id as a query parameter or a body field', () => {
  let h: Harness;
  let user: { user_id: string; team_id: string; email: string };
  beforeAll(async () => {
    h = await startHarness({ backgroundDelayMs: 60_000 });
    user = await createAccount(h, 'caller@example.com');
  });
  afterAll(() => h.close());

  it('content: a task is created with user_id in the body or the query; other unknown keys are still refused', async () => {
    const inBody = await h.call('POST', '/api/v1/tasks', { user_id: user.user_id, user_prompt: 'Compost basics' });
    expectServed('createTask', inBody);
    const inQuery = await h.call('POST', `/api/v1/tasks?user_id=${user.user_id}`, { user_prompt: 'Compost basics' });
    expectServed('createTask', inQuery);
    expectServed('listTasks', await h.call('GET', `/api/v1/tasks?user_id=${user.user_id}`));
    expectServed('getTask', await h.call('GET', `/api/v1/tasks/${inBody.body.task_id}?user_id=${user.user_id}`));
    expectContentError(
      await h.call('POST', '/api/v1/tasks', { user_id: user.user_id, user_prompt: 'x', topic: 'y' }),
      400,
      'VALIDATION_ERROR',
    );
    expectContentError(
      await h.call('POST', '/api/v1/tasks', { user_id: 'not-a-uuid', user_prompt: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('bootstrap: the steps accept user_id in the body', async () => {
    const projectId = (await h.api('GET', '/projects')).body.data[0].id;
    const started = await h.call('POST', '/api/v1/bootstrap/initialize', {
      user_id: user.user_id,
      project_id: projectId,
      brand_name: 'Acme',
      url: 'https://acme.example.com',
    });
    expectServed('bootstrapInitialize', started);
    expectServed('getBootstrapProject', await h.call('GET', `/api/v2/projects/${projectId}?user_id=${user.user_id}`));
  });

  it('teams: the body-listed user_id may come in the query, the query-listed one in the body', async () => {
    const created = await h.call('POST', `/api/v2/create_team?user_id=${user.user_id}`, {});
    const team = expectServed('createTeam', created);
    const added = await h.call('POST', `/api/v2/teams/${team.team_id}/members?user_id=${user.user_id}`, {
      email: 'someone@example.com',
    });
    expectServed('addMember', added);
    const removed = await h.call('DELETE', `/api/v2/teams/${team.team_id}/members/someone%40example.com`, {
      user_id: user.user_id,
    });
    expectServed('removeMember', removed);
    expectDetail(
      await h.call('POST', `/api/v2/create_team?user_id=${user.user_id}`, {
        user_id: '11111111-1111-4111-8111-111111111111',
      }),
      400,
      /different users/,
    );
  });
});
