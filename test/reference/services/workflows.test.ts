/**
 * Action workflows over HTTP: the execute workflow of a new_content action, its checkpoints answered through the
 * extension endpoints, and the signed deliveries to a local receiver (retries on a ManualClock, no real waiting).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Workflow, WorkflowDelivery } from '../../../src/api/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, verifySignature } from '../../../src/reference/services/index.js';
import { configureServices } from '../../../src/reference/services/registry.js';
import { type Plan, type Receiver, receiverVerifies, startReceiver } from './receiver.js';
import { createAccount, expectDetail, type Harness, type Json, type Reply, startHarness, until } from './support.js';

const ALL_EVENTS = ['action.checkpoint', 'action.completed', 'action.failed'];

describe('action workflows', () => {
  let clock: ManualClock;
  let h: Harness;
  let receiver: Receiver;
  let projectId: string;
  let secret: string;
  let webhookId: string;

  async function setup(
    plan: Plan = () => 200,
    events = ALL_EVENTS,
    deliveryTimeoutMs = 10_000,
    allowHttpLoopback = true,
  ): Promise<void> {
    clock = new ManualClock(Date.UTC(2026, 2, 15, 12));
    h = await startHarness({ clock, projects: 2, services: { allowHttpLoopback, deliveryTimeoutMs } });
    receiver = await startReceiver(clock, plan);
    projectId = (await h.api('GET', '/projects')).body.data[0].id;
    const hook = await h.api('POST', '/webhooks', { url: receiver.url, events });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    secret = hook.body.data.secret;
    webhookId = hook.body.data.id;
  }

  afterEach(async () => {
    await h?.services().workflows.drained();
    await h?.close();
    await receiver?.close();
  });

  async function newAction(category = 'new_content'): Promise<string> {
    const reply = await h.api('POST', `/projects/${projectId}/actions`, {
      title: 'Guide to home composting',
      description: 'A long-form guide that answers the questions buyers ask about compost bins.',
      category,
      priority: 'high',
      execution: { type: 'publishable_content' },
      targets: [
        { type: 'keyword', value: 'compost bins' },
        { type: 'url', value: 'https://garden.example.org/compost' },
      ],
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data.id;
  }

  /** A successful answer carries the workflow in envelope A, as the contract's `Workflow` describes it. */
  const checked = (reply: Reply): Reply => {
    if (reply.status < 300) {
      const parsed = Workflow.safeParse(reply.body?.data);
      expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
    }
    return reply;
  };
  const execute = async (actionId: string) =>
    checked(await h.api('POST', `/projects/${projectId}/actions/${actionId}/execute`));
  const workflow = async (id: string): Promise<Json> =>
    checked(await h.api('GET', `/projects/${projectId}/workflows/${id}`)).body.data;
  const answer = async (id: string, body: unknown) =>
    checked(await h.api('POST', `/projects/${projectId}/workflows/${id}/checkpoint`, body));
  /** Lets the background stage run (simulated clock past the background delay) and waits for its delivery. */
  async function nextStage(deliveries: number): Promise<Json> {
    await h.advance(60);
    await until(() => receiver.hits.length >= deliveries);
    const hit = receiver.hits[deliveries - 1];
    if (!hit) throw new Error('no delivery');
    expect(receiverVerifies(secret, hit.raw, hit.headers[SIGNATURE_HEADER])).toBe(true);
    expect(verifySignature(secret, hit.raw, hit.headers[SIGNATURE_HEADER] as string)).toBe(true);
    // A body changed by one character, or another secret, does not verify.
    expect(receiverVerifies(secret, `${hit.raw} `, hit.headers[SIGNATURE_HEADER])).toBe(false);
    expect(receiverVerifies(`${secret}x`, hit.raw, hit.headers[SIGNATURE_HEADER])).toBe(false);
    const body = JSON.parse(hit.raw);
    const parsed = WorkflowDelivery.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    return body;
  }

  describe('with a receiver that answers 200', () => {
    beforeEach(() => setup());

    it('runs outline → draft → final review → completed, with signed checkpoint and completed events', async () => {
      const actionId = await newAction();
      const started = await execute(actionId);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const id = started.body.data.workflow_id;
      expect(started.body.data).toMatchObject({ status: 'running', checkpoint: null, action_id: actionId });
      expect((await h.api('GET', `/projects/${projectId}/actions/${actionId}`)).body.data.status).toBe('in_progress');

      const outline = await nextStage(1);
      expect(outline.event).toBe('action.checkpoint');
      expect(outline.data).toMatchObject({ action_id: actionId, workflow_id: id, checkpoint: 'outline' });
      expect(outline.data.content).toContain('# Guide to home composting');
      expect(outline.data.options.map((o: { action: string }) => o.action)).toEqual([
        'approve',
        'edit',
        'regenerate',
        'reject',
      ]);
      expect(Number.isNaN(Date.parse(outline.timestamp))).toBe(false);
      expect((await workflow(id)).status).toBe('awaiting_checkpoint');

      // Regenerate the outline: a new checkpoint event with another outline.
      expect((await answer(id, { action: 'regenerate' })).body.data.status).toBe('running');
      const again = await nextStage(2);
      expect(again.data.checkpoint).toBe('outline');
      expect(again.data.content).not.toBe(outline.data.content);

      await answer(id, { action: 'approve', checkpoint: 'outline' });
      const draft = await nextStage(3);
      expect(draft.data.checkpoint).toBe('draft');
      expect(draft.data.content).toContain('compost bins');
      expect(draft.data.content).toContain('](https://garden.example.org/compost)');

      const edited = '# Guide to home composting\n\nOur own edited draft about compost bins.\n';
      await answer(id, { action: 'edit', content: edited });
      const review = await nextStage(4);
      expect(review.data.checkpoint).toBe('final_review');
      expect(review.data.content).toContain('Our own edited draft about compost bins.');
      expect(review.data.content).toContain('seo_title:');

      const finished = await answer(id, { action: 'approve' });
      expect(finished.body.data.status).toBe('completed');
      await until(() => receiver.hits.length >= 5);
      const completed = JSON.parse(receiver.hits[4]?.raw ?? '{}');
      expect(completed.event).toBe('action.completed');
      expect(completed.data.result.title).toBe('Guide to home composting');
      expect(completed.data.result.content).toBe(edited);
      // The article is stored by the content service, and the action is completed.
      const article = await h.call('GET', `/api/v1/articles/${completed.data.result.article_id}`);
      expect(article.body.content).toBe(edited);
      expect((await h.api('GET', `/projects/${projectId}/actions/${actionId}`)).body.data.status).toBe('completed');

      // Each event has its own stable delivery id; every delivery was signed with the webhook's secret.
      const ids = receiver.hits.map((hit) => hit.headers[DELIVERY_ID_HEADER]);
      expect(new Set(ids).size).toBe(5);
      await h.services().workflows.drained();
      const view = await workflow(id);
      expect(view.deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toEqual(ids);
      expect(view.deliveries.every((d: { delivered: boolean }) => d.delivered)).toBe(true);
      expect(view.answers.map((a: { answer: string }) => a.answer)).toEqual([
        'regenerate',
        'approve',
        'edit',
        'approve',
      ]);
    });

    it('sends action.failed when a checkpoint is rejected or a stage fails', async () => {
      const id = (await execute(await newAction())).body.data.workflow_id;
      await nextStage(1);
      const rejected = await answer(id, { action: 'reject' });
      expect(rejected.body.data).toMatchObject({ status: 'failed', error: 'Rejected at the outline checkpoint' });
      await until(() => receiver.hits.length >= 2);
      const failed = JSON.parse(receiver.hits[1]?.raw ?? '{}');
      expect(failed).toMatchObject({
        event: 'action.failed',
        data: { workflow_id: id, error: 'Rejected at the outline checkpoint' },
      });

      h.services().workflows.plannedFailure = { checkpoint: 'outline', message: 'LLM_ERROR: the model timed out' };
      const second = (await execute(await newAction())).body.data.workflow_id;
      const event = await nextStage(3);
      expect(event).toMatchObject({
        event: 'action.failed',
        data: { workflow_id: second, error: 'LLM_ERROR: the model timed out' },
      });
      expect((await workflow(second)).status).toBe('failed');
    });

    it('refuses what the workflow cannot do', async () => {
      const actionId = await newAction();
      expectDetail(await execute(await newAction('on_page_seo')), 400, /Only new_content actions/);
      expectDetail(await execute('44444444-4444-4444-8444-444444444444'), 404, 'Action not found');
      const id = (await execute(actionId)).body.data.workflow_id;
      expectDetail(await execute(actionId), 409, /already running/);
      expectDetail(await answer(id, { action: 'approve' }), 409, /not waiting at a checkpoint/);
      await nextStage(1);
      expectDetail(await answer(id, { action: 'ship-it' }), 400);
      expectDetail(await answer(id, { action: 'edit' }), 400, 'content is required to edit a checkpoint');
      expectDetail(await answer(id, { action: 'approve', checkpoint: 'draft' }), 409, /outline checkpoint/);
      expectDetail(await answer(id, { action: 'approve', checkpoint: 'final review' }), 400, /checkpoint is one of/);
      expectDetail(await h.api('GET', `/projects/${projectId}/workflows/44444444-4444-4444-8444-444444444444`), 404);
      expectDetail(
        await h.api('GET', `/projects/${projectId}/workflows/${id}`, undefined, 'vwh_wrong'),
        401,
        'Invalid API key',
      );
      expectDetail(
        await h.api('POST', `/projects/55555555-5555-4555-8555-555555555555/actions/${actionId}/execute`),
        404,
        'Project not found',
      );
      // A workflow is reached under its own project only.
      const other = (await h.api('GET', '/projects')).body.data[1].id;
      expect(other).not.toBe(projectId);
      expectDetail(await h.api('GET', `/projects/${other}/workflows/${id}`), 404, 'Workflow not found');
      expectDetail(
        await h.api('POST', `/projects/${other}/workflows/${id}/checkpoint`, { action: 'approve' }),
        404,
        'Workflow not found',
      );
      // A viewer key reads but may not execute or answer; a key of another team reaches nothing.
      const teamId = h.state.demo?.teamId ?? '';
      const viewer = (await h.call('POST', '/_reference/keys/mint', { team_id: teamId, role: 'viewer' })).body.api_key;
      expect((await h.api('GET', `/projects/${projectId}/workflows/${id}`, undefined, viewer)).status).toBe(200);
      const readOnly = 'This API key is read-only';
      expectDetail(
        await h.api('POST', `/projects/${projectId}/actions/${actionId}/execute`, undefined, viewer),
        403,
        readOnly,
      );
      expectDetail(
        await h.api('POST', `/projects/${projectId}/workflows/${id}/checkpoint`, { action: 'approve' }, viewer),
        403,
        readOnly,
      );
      const stranger = await createAccount(h, 'stranger@example.com');
      const strangerKey = (
        await h.call('POST', '/api/public/v1/account/api-key', { email: stranger.email, password: stranger.password })
      ).body.data.api_key;
      const foreign = await h.api('GET', `/projects/${projectId}/workflows/${id}`, undefined, strangerKey);
      expect(foreign.status).toBe(403);
      expect(
        (await h.api('POST', `/projects/${projectId}/actions/${actionId}/execute`, undefined, strangerKey)).status,
      ).toBe(403);
      // None of it moved the workflow.
      expect((await workflow(id)).status).toBe('awaiting_checkpoint');
    });
  });

  it('retries a receiver that fails twice after 2 s and 4 s with the same delivery id', async () => {
    await setup((n) => (n < 2 ? 500 : 200), ['action.checkpoint']);
    const id = (await execute(await newAction())).body.data.workflow_id;
    await h.advance(60);
    const record = () => h.services().workflows.get(id, h.state.demo?.teamId ?? '').deliveries[0];
    await until(() => record()?.attempts.length === 1);
    const t0 = receiver.hits[0]?.at ?? 0;
    await clock.advance(1_999);
    expect(receiver.hits).toHaveLength(1);
    await clock.advance(1);
    await until(() => record()?.attempts.length === 2);
    await clock.advance(4_000);
    await until(() => record()?.done === true);
    expect(receiver.hits.map((hit) => hit.at - t0)).toEqual([0, 2_000, 6_000]);
    expect(receiver.hits.map((hit) => hit.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(receiver.hits.map((hit) => hit.headers[DELIVERY_ID_HEADER])).size).toBe(1);
    expect(new Set(receiver.hits.map((hit) => hit.raw)).size).toBe(1);
    for (const hit of receiver.hits)
      expect(receiverVerifies(secret, hit.raw, hit.headers[SIGNATURE_HEADER])).toBe(true);
    expect(record()).toMatchObject({ delivered: true, done: true });
    expect(record()?.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
  });

  it('gives up after 3 retries, counts no answer within the timeout as a failure, and stops when the webhook is deleted', async () => {
    await setup((n) => (n === 0 ? 'hang' : 503), ['action.checkpoint'], 200);
    const id = (await execute(await newAction())).body.data.workflow_id;
    await h.advance(60);
    const record = () => h.services().workflows.get(id, h.state.demo?.teamId ?? '').deliveries[0];
    await until(() => record()?.attempts.length === 1);
    expect(record()?.attempts[0]).toMatchObject({ status: null, error: 'no answer within 200 ms' });
    for (const [wait, n] of [
      [2_000, 2],
      [4_000, 3],
      [8_000, 4],
    ] as const) {
      await clock.advance(wait);
      await until(() => (record()?.attempts.length ?? 0) >= n);
    }
    await until(() => record()?.done === true);
    expect(record()).toMatchObject({ delivered: false });
    expect(record()?.attempts).toHaveLength(4);

    // Deleting the webhook stops delivery at once: a pending retry makes no further attempt.
    await answer(id, { action: 'regenerate' });
    await h.advance(60);
    const second = () => h.services().workflows.get(id, h.state.demo?.teamId ?? '').deliveries[1];
    await until(() => second()?.attempts.length === 1);
    expect((await h.api('DELETE', `/webhooks/${webhookId}`)).status).toBe(200);
    await clock.advance(2_000);
    await until(() => second()?.done === true);
    expect(second()?.attempts).toHaveLength(1);
    expect(receiver.hits).toHaveLength(5);
  });

  it('sends nothing to loopback without the explicit flag: refused at registration and at delivery', async () => {
    await setup(() => 200, ['action.checkpoint']);
    // The switch goes off after the webhook was registered: the delivery is refused, not retried, never sent.
    configureServices(h.state, { allowHttpLoopback: false });
    expectDetail(
      await h.api('POST', '/webhooks', { url: receiver.url.replace('/hook', '/other'), events: ['action.checkpoint'] }),
      400,
      /loopback/,
    );
    const id = (await execute(await newAction())).body.data.workflow_id;
    await h.advance(60);
    const record = () => h.services().workflows.get(id, h.state.demo?.teamId ?? '').deliveries[0];
    await until(() => record()?.done === true);
    expect(record()?.attempts).toHaveLength(1);
    expect(record()?.attempts[0]).toMatchObject({ status: null });
    expect(record()?.attempts[0]?.error).toMatch(/^refused: 127\.0\.0\.1 is a loopback address/);
    expect(record()?.delivered).toBe(false);
    expect(receiver.hits).toHaveLength(0);
  });
});
