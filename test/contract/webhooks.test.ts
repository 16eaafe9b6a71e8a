/**
 * The bodies the reference server POSTs to receivers, validated with ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1; from test/contract's own package) against the `webhooks` of the generated OpenAPI document: the
 * project bootstrap callback (`completed` and `error`) and the action workflow deliveries (`action.checkpoint`,
 * `action.completed`, `action.failed`), whose headers must carry what the document's parameters require.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/index.js';
import { ManualClock } from '../../src/core/clock.js';
import { type Hit, type Receiver, startReceiver } from '../reference/services/receiver.js';
import { createAccount, type Harness, startHarness, until } from '../reference/services/support.js';
import { requireTool } from './tools.js';

interface ValidateFunction {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; message?: string }> | null;
}
interface AjvInstance {
  addSchema(schema: object): AjvInstance;
  compile(schema: object): ValidateFunction;
}
type AjvClass = new (options: object) => AjvInstance;

const DOCUMENT_ID = 'urn:vwh:openapi';
const doc = buildOpenApiDocument();

interface WebhookOperation {
  parameters?: Array<{ name: string; in: string; required: boolean; schema: object }>;
  requestBody: { content: { 'application/json': { schema: { $ref: string } } } };
}
function webhook(name: string): WebhookOperation {
  return (doc.webhooks[name] as { post: WebhookOperation }).post;
}

/** A validator of the webhook's body, compiled by ajv from the document (its components resolved by ajv). */
function bodyValidator(name: string): (body: unknown) => string[] {
  const Ajv = requireTool<{ default: AjvClass }>('ajv/dist/2020').default;
  const addFormats = requireTool<{ default: (ajv: AjvInstance) => void }>('ajv-formats').default;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: doc.components });
  const { $ref } = webhook(name).requestBody.content['application/json'].schema;
  const validate = ajv.compile({ $ref: DOCUMENT_ID + $ref });
  return (body) => (validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
}

/** The header parameters the document requires of a delivery that the hit lacks or that break their schema. */
function headerProblems(name: string, hit: Hit): string[] {
  const problems: string[] = [];
  for (const p of webhook(name).parameters ?? []) {
    const value = hit.headers[p.name.toLowerCase()];
    if (p.required && typeof value !== 'string') problems.push(`${p.name} missing`);
  }
  return problems;
}

let clock: ManualClock;
let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 2, 15, 12));
  h = await startHarness({ clock, projects: 1, services: { allowHttpLoopback: true } });
  receiver = await startReceiver(clock);
});
afterAll(async () => {
  await h?.services().workflows.drained();
  await h?.close();
  await receiver?.close();
});

describe('webhook bodies against the document', () => {
  it('project.bootstrap: the callback of a completed and of a failed bootstrap', async () => {
    const validate = bodyValidator('project.bootstrap');
    for (const email of ['callback-ok@example.com', 'callback-broke@example.com']) {
      const { password, team_id } = await createAccount(h, email);
      const key = (await h.call('POST', '/api/public/v1/account/api-key', { email, password })).body.data.api_key;
      // The second team has spent its credits: its bootstrap ends in `error`.
      const team = h.state.accounts.teams.get(team_id);
      if (email.includes('broke') && team) h.state.accounts.spendCredits(team, h.state.month(), 10);
      const body = { brand_name: `Brand ${email}`, brand_url: 'https://brand.example', webhook_url: receiver.url };
      expect((await h.api('POST', '/account/projects', body, key)).status).toBe(202);
    }
    await h.advance(120);
    await until(() => receiver.hits.length >= 2);
    const bodies = receiver.hits.map((hit) => JSON.parse(hit.raw));
    expect(bodies.map((b) => b.status).sort()).toEqual(['completed', 'error']);
    for (const body of bodies) expect(validate(body), JSON.stringify(body)).toEqual([]);
    // The validator bites: a body the document does not allow fails it.
    expect(validate({ ...bodies[0], status: 'done' }).join()).toMatch(/status/);
    expect(validate({ ...bodies[0], project_id: undefined }).join()).toMatch(/project_id/);
    receiver.hits.length = 0;
  });

  it('action.workflow: checkpoint, completed and failed deliveries, with the headers the document requires', async () => {
    const validate = bodyValidator('action.workflow');
    const hook = await h.api('POST', '/webhooks', {
      url: receiver.url,
      events: ['action.checkpoint', 'action.completed', 'action.failed'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const projectId = (await h.api('GET', '/projects')).body.data[0].id;
    const p = `/projects/${projectId}`;
    const execute = async (): Promise<string> => {
      const action = await h.api('POST', `${p}/actions`, {
        title: 'Guide to home composting',
        description: 'A long-form guide to compost bins.',
        category: 'new_content',
        priority: 'high',
        execution: { type: 'publishable_content' },
        targets: [{ type: 'keyword', value: 'compost bins' }],
      });
      const started = await h.api('POST', `${p}/actions/${action.body.data.id}/execute`);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      return started.body.data.workflow_id;
    };
    const stage = async (count: number) => {
      await h.advance(60);
      await until(() => receiver.hits.length >= count);
    };
    // One workflow approved at each checkpoint (3 checkpoint events, then completed); one rejected (failed).
    const approved = await execute();
    for (let n = 1; n <= 3; n++) {
      await stage(n);
      await h.api('POST', `${p}/workflows/${approved}/checkpoint`, { action: 'approve' });
    }
    await until(() => receiver.hits.length >= 4);
    const rejected = await execute();
    await stage(5);
    await h.api('POST', `${p}/workflows/${rejected}/checkpoint`, { action: 'reject' });
    await until(() => receiver.hits.length >= 6);

    const events = receiver.hits.map((hit) => JSON.parse(hit.raw).event);
    expect(new Set(events)).toEqual(new Set(['action.checkpoint', 'action.completed', 'action.failed']));
    for (const hit of receiver.hits) {
      expect(validate(JSON.parse(hit.raw)), hit.raw.slice(0, 200)).toEqual([]);
      expect(headerProblems('action.workflow', hit)).toEqual([]);
      expect(hit.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    }
    const first = JSON.parse(receiver.hits[0]!.raw);
    expect(validate({ ...first, event: 'action.started' }).join()).toMatch(/event/);
  });
});
