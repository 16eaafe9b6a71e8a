/**
 * `vwh events listen`'s receiver and the run's ingestion: signature checked before parsing (missing, wrong → 401;
 * a rotated secret accepted), 413 past the size limit, durable journal before the 200, a redelivery stored once; an
 * event accepted while a run holds the warehouse is neither lost nor doubled; bootstrap callbacks confirmed with an
 * authenticated request. Real HTTP on port 0, real DuckDB, the reference server for the confirmation.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/core/clock.js';
import { EventJournal, journalFiles, readJournal } from '../../src/ops/events/journal.js';
import { type Receiver, startReceiver } from '../../src/ops/events/receiver.js';
import { withOps } from '../../src/ops/ledger.js';
import type { RunContext } from '../../src/ops/stage.js';
import { eventsStage } from '../../src/ops/stages/events.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { startWorld } from '../sync/harness.js';
import { capture, quiet, tempDir } from './support.js';

const OLD_SECRET = 'whsec_old_0123456789abcdef';
const NEW_SECRET = 'whsec_new_fedcba9876543210';

function delivery(n: number): string {
  return JSON.stringify({
    event: 'action.completed',
    timestamp: '2026-03-15T10:00:00Z',
    data: { action_id: `a-${n}`, workflow_id: `w-${n}`, result: { title: 't', content: 'c' } },
  });
}

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

function stageContext(db: string, sync: RunContext['sync'] = {}): RunContext {
  return {
    runId: 'r',
    trigger: 'manual',
    dbPath: db,
    config: {},
    sync,
    modelsDir: '.',
    publishPath: undefined,
    clock: systemClock,
    logger: quiet,
    out: capture().out,
    stop: new AbortController().signal,
    outcomes: new Map(),
  };
}

describe('the webhook receiver and its journal', () => {
  const t = tempDir('vwh-events-');
  const journalDir = join(t.dir, 'events');
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secrets: [OLD_SECRET, NEW_SECRET],
      journal: new EventJournal(journalDir),
      maxBodyBytes: 4096,
      clock: new ManualClock(Date.UTC(2026, 2, 15, 10)),
      logger: quiet,
    });
  });
  afterAll(async () => {
    await receiver.close();
    t.cleanup();
  });

  it('refuses a missing or wrong signature (401) and a body that is not JSON only once it is signed (400)', async () => {
    const body = delivery(1);
    expect((await post(`${receiver.url}/webhooks`, body)).status).toBe(401);
    expect(
      (await post(`${receiver.url}/webhooks`, body, { 'x-webhook-signature': sign('whsec_wrong_secret_000', body) }))
        .status,
    ).toBe(401);
    expect((await post(`${receiver.url}/webhooks`, body, { 'x-webhook-signature': 'abc' })).status).toBe(401);
    // Unsigned garbage is refused for its signature, before any parsing.
    expect((await post(`${receiver.url}/webhooks`, '{not json')).status).toBe(401);
    expect(
      (await post(`${receiver.url}/webhooks`, '{not json', { 'x-webhook-signature': sign(OLD_SECRET, '{not json') }))
        .status,
    ).toBe(400);
    expect(readJournal(journalDir)).toEqual([]);
  });

  it('accepts both secrets of a rotation, journals durably before answering, and stores a redelivery once', async () => {
    const a = delivery(2);
    const b = delivery(3);
    const first = await post(`${receiver.url}/webhooks`, a, {
      'x-webhook-signature': sign(OLD_SECRET, a),
      'x-webhook-delivery-id': 'd-2',
    });
    expect(first).toEqual({ status: 200, body: { stored: true, duplicate: false } });
    // The line is on disk when the 200 arrives.
    const files = journalFiles(journalDir);
    expect(files).toHaveLength(1);
    expect(readFileSync(files[0] as string, 'utf8')).toContain('"key":"delivery:d-2"');
    const again = await post(`${receiver.url}/webhooks`, a, {
      'x-webhook-signature': sign(OLD_SECRET, a),
      'x-webhook-delivery-id': 'd-2',
    });
    expect(again).toEqual({ status: 200, body: { stored: false, duplicate: true } });
    expect((await post(`${receiver.url}/webhooks`, b, { 'x-webhook-signature': sign(NEW_SECRET, b) })).status).toBe(
      200,
    );
    expect(readJournal(journalDir).map((e) => e.key)).toEqual(['delivery:d-2', expect.stringMatching(/^sha256:/)]);
    // A restarted receiver knows what its journal holds.
    const journaled = readJournal(journalDir)[0];
    expect(journaled && new EventJournal(journalDir).append(journaled)).toBe(false);
  });

  it('answers 413 to a body over the limit, signed or not', async () => {
    const big = JSON.stringify({
      event: 'action.failed',
      timestamp: 'x',
      data: { action_id: 'a', workflow_id: 'w', error: 'e'.repeat(5000) },
    });
    expect((await post(`${receiver.url}/webhooks`, big, { 'x-webhook-signature': sign(OLD_SECRET, big) })).status).toBe(
      413,
    );
    expect((await post(`${receiver.url}/bootstrap`, big)).status).toBe(413);
  });

  it('an event accepted while a run holds the warehouse is ingested by the next run, once', async () => {
    const holder = await Warehouse.open(t.db); // the nightly run's write connection
    try {
      const c = delivery(4);
      const headers = { 'x-webhook-signature': sign(NEW_SECRET, c), 'x-webhook-delivery-id': 'd-4' };
      expect((await post(`${receiver.url}/webhooks`, c, headers)).status).toBe(200);
      expect((await post(`${receiver.url}/webhooks`, c, headers)).status).toBe(200);
    } finally {
      holder.close();
    }
    const first = await eventsStage.run(stageContext(t.db));
    expect(first.counts).toMatchObject({ journaled: 3, new: 3 });
    const second = await eventsStage.run(stageContext(t.db));
    expect(second.counts).toMatchObject({ journaled: 3, new: 0 });
    const rows = await withOps(t.db, ({ session }) =>
      session.all<{ action_id: string; signed: boolean }>(
        'select action_id, signed from raw.webhook_events order by action_id',
      ),
    );
    expect(rows).toEqual([
      { action_id: 'a-2', signed: true },
      { action_id: 'a-3', signed: true },
      { action_id: 'a-4', signed: true },
    ]);
  });
});

describe('bootstrap callbacks', () => {
  it('are confirmed with an authenticated request: a real project confirmed, an unknown one rejected', async () => {
    const t = tempDir('vwh-bootstrap-');
    const server = await startWorld();
    const receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secrets: [],
      journal: new EventJournal(join(t.dir, 'events')),
      maxBodyBytes: 4096,
      clock: systemClock,
      logger: quiet,
    });
    const previous = process.env.VWH_API_KEY;
    try {
      const projects = await request(`${server.url}/api/public/v1/projects`, {
        headers: { 'x-api-key': server.demoApiKey ?? '' },
      });
      const known = ((await projects.body.json()) as { data: Array<{ id: string }> }).data[0]?.id as string;
      const callback = (project_id: string) =>
        JSON.stringify({
          event: 'project.bootstrap',
          project_id,
          status: 'completed',
          error: null,
          timestamp: '2026-03-15T09:00:00Z',
        });
      expect((await post(`${receiver.url}/bootstrap`, callback(known))).status).toBe(200);
      expect((await post(`${receiver.url}/bootstrap`, callback('00000000-0000-4000-8000-000000000000'))).status).toBe(
        200,
      );
      expect((await post(`${receiver.url}/bootstrap`, JSON.stringify({ event: 'project.bootstrap' }))).status).toBe(
        400,
      );

      delete process.env.VWH_API_KEY;
      const noKey = await eventsStage.run(stageContext(t.db));
      expect(noKey.counts).toMatchObject({ new: 2, pending: 2 });
      process.env.VWH_API_KEY = server.demoApiKey;
      const withKey = await eventsStage.run(stageContext(t.db, { baseUrl: server.url }));
      expect(withKey.counts).toMatchObject({ new: 0, confirmed: 1, rejected: 1, pending: 0 });
      const rows = await withOps(t.db, ({ session }) =>
        session.all<{ project_id: string; confirmation: string; signed: boolean }>(
          "select project_id, confirmation, signed from raw.webhook_events where event = 'project.bootstrap' order by confirmation",
        ),
      );
      expect(rows).toEqual([
        { project_id: known, confirmation: 'confirmed', signed: false },
        { project_id: '00000000-0000-4000-8000-000000000000', confirmation: 'rejected', signed: false },
      ]);
    } finally {
      if (previous === undefined) delete process.env.VWH_API_KEY;
      else process.env.VWH_API_KEY = previous;
      await receiver.close();
      await server.close();
      t.cleanup();
    }
  });
});
