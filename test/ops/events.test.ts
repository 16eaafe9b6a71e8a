/**
 * `vwh events listen`'s receiver and the run's ingestion: signature checked before parsing (missing, wrong → 401;
 * a rotated secret accepted), 413 past the size limit, durable journal before the 200, a redelivery stored once; an
 * event accepted while a run holds the warehouse is neither lost nor doubled; bootstrap callbacks confirmed with an
 * authenticated request. Real HTTP on port 0, real DuckDB, the reference server for the confirmation.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/core/clock.js';
import { bodyKey, EventJournal, type JournalEntry, journalFiles, readJournal } from '../../src/ops/events/journal.js';
import { type Receiver, startReceiver, verifyAny } from '../../src/ops/events/receiver.js';
import { withOps } from '../../src/ops/ledger.js';
import { eventsStage } from '../../src/ops/stages/events.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { startWorld } from '../sync/support.js';
import { quiet, stageContext, tempDir, writeConfig } from './support.js';

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
    expect(readFileSync(files[0] as string, 'utf8')).toContain(`"key":"${bodyKey(a)}"`);
    const again = await post(`${receiver.url}/webhooks`, a, {
      'x-webhook-signature': sign(OLD_SECRET, a),
      'x-webhook-delivery-id': 'd-2',
    });
    expect(again).toEqual({ status: 200, body: { stored: false, duplicate: true } });
    expect((await post(`${receiver.url}/webhooks`, b, { 'x-webhook-signature': sign(NEW_SECRET, b) })).status).toBe(
      200,
    );
    expect(readJournal(journalDir).map((e) => e.key)).toEqual([bodyKey(a), bodyKey(b)]);
    // A restarted receiver knows what its journal holds.
    const journaled = readJournal(journalDir)[0];
    expect(journaled && new EventJournal(journalDir).append(journaled)).toBe(false);
  });

  it('stores the exact signed bytes: UTF-8 text kept byte for byte, a body that is not UTF-8 refused (400)', async () => {
    // a journal of its own: the next tests count what the shared one holds
    const dir = join(t.dir, 'events-utf8');
    const own = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secrets: [OLD_SECRET],
      journal: new EventJournal(dir),
      maxBodyBytes: 4096,
      clock: new ManualClock(Date.UTC(2026, 2, 15, 10)),
      logger: quiet,
    });
    try {
      const text = JSON.stringify({
        event: 'action.completed',
        timestamp: '2026-03-15T10:00:00Z',
        data: { action_id: 'a-utf8', workflow_id: 'w-utf8', result: { title: 'Café ☕ 🚲', content: 'ü' } },
      });
      const bytes = Buffer.from(text, 'utf8');
      const signature = createHmac('sha256', OLD_SECRET).update(bytes).digest('hex');
      const ok = await request(`${own.url}/webhooks`, {
        method: 'POST',
        body: bytes,
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
      });
      await ok.body.dump();
      expect(ok.statusCode).toBe(200);
      const stored = readJournal(dir).find((e) => e.body.includes('a-utf8'));
      expect(Buffer.from(stored?.body ?? '', 'utf8').equals(bytes)).toBe(true);
      expect(verifyAny([OLD_SECRET], Buffer.from(stored?.body ?? '', 'utf8'), signature)).toBe(true);

      // 0xff never occurs in UTF-8: stored as text it would become U+FFFD, and no longer be the body that was signed.
      const broken = Buffer.concat([
        Buffer.from(text.replace('a-utf8', 'a-latin1').slice(0, -3)),
        Buffer.from([0xff]),
        Buffer.from('"}}'),
      ]);
      const refused = await request(`${own.url}/webhooks`, {
        method: 'POST',
        body: broken,
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': createHmac('sha256', OLD_SECRET).update(broken).digest('hex'),
        },
      });
      expect(refused.statusCode).toBe(400);
      expect(((await refused.body.json()) as { detail: string }).detail).toMatch(/not valid UTF-8/);
      expect(readJournal(dir).some((e) => e.body.includes('a-latin1'))).toBe(false);
    } finally {
      await own.close();
    }
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

  it('lets a client still sending a large body read its 413 every time (the connection closes after the body)', async () => {
    // 2 MB streamed as a client uploads a file, still being written when the 413 comes: closing at once reset the
    // connection and the client saw EPIPE / ECONNRESET instead of the answer.
    const size = 2 * 1024 * 1024;
    const chunk = Buffer.alloc(128 * 1024, 'a');
    async function* upload() {
      for (let sent = 0; sent < size; sent += chunk.length) {
        yield chunk;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    const outcomes: Array<number | string> = [];
    for (let i = 0; i < 10; i++) {
      const declared = i % 2 === 0 ? { 'content-length': String(size) } : {};
      const res = await request(`${receiver.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...declared },
        body: Readable.from(upload()),
      }).catch((error: Error) => error);
      if (res instanceof Error) outcomes.push(res.message);
      else {
        outcomes.push(res.statusCode);
        await res.body.dump();
      }
    }
    expect(outcomes).toEqual(Array(10).fill(413));
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
    expect(second.counts).toMatchObject({ journaled: 0, new: 0 });
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

describe('replays, retries and stale bodies', () => {
  const NOW = Date.UTC(2026, 10, 25, 12);
  const HOUR = 3_600_000;
  const t = tempDir('vwh-replay-');
  const journalDir = join(t.dir, 'events');
  const clock = new ManualClock(NOW);
  let receiver: Receiver;
  const event = (actionId: string, at: number | string, name = 'action.completed') =>
    JSON.stringify({
      event: name,
      timestamp: typeof at === 'string' ? at : new Date(at).toISOString(),
      data: { action_id: actionId, workflow_id: `w-${actionId}`, result: { title: 't', content: 'c' } },
    });
  const send = (url: string, body: string, deliveryId?: string) =>
    post(`${url}/webhooks`, body, {
      'x-webhook-signature': sign(NEW_SECRET, body),
      ...(deliveryId ? { 'x-webhook-delivery-id': deliveryId } : {}),
    });

  beforeAll(async () => {
    receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secrets: [NEW_SECRET],
      journal: new EventJournal(journalDir),
      maxBodyBytes: 4096,
      clock,
      logger: quiet,
    });
  });
  afterAll(async () => {
    await receiver.close();
    t.cleanup();
  });

  it('stores a signed body once, whatever delivery ids it comes with (retries and replays), and ingests one row', async () => {
    const body = event('a-replayed', NOW - HOUR);
    expect(await send(receiver.url, body, 'd-1')).toEqual({ status: 200, body: { stored: true, duplicate: false } });
    // The service's retry: the same delivery id.
    expect(await send(receiver.url, body, 'd-1')).toEqual({ status: 200, body: { stored: false, duplicate: true } });
    // A replay: the same signed body under new delivery ids, or none.
    for (const id of ['d-x1', 'd-x2', 'd-x3', undefined]) {
      expect(await send(receiver.url, body, id)).toEqual({ status: 200, body: { stored: false, duplicate: true } });
    }
    expect(readJournal(journalDir).map((e) => [e.key, e.delivery_id])).toEqual([[bodyKey(body), 'd-1']]);
    // A receiver restarted on the journal still knows the body.
    expect(
      new EventJournal(journalDir).append({ ...(readJournal(journalDir)[0] as JournalEntry), delivery_id: 'd-x4' }),
    ).toBe(false);
    const ran = await eventsStage.run(stageContext(t.db));
    expect(ran.counts).toMatchObject({ journaled: 1, new: 1 });
    const rows = await withOps(t.db, ({ session }) =>
      session.all<{ n: number }>("select count(*)::int as n from raw.webhook_events where action_id = 'a-replayed'"),
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('refuses with 422 a signed body whose timestamp is older than 24 h (or as far ahead), by the injected clock', async () => {
    const before = readJournal(journalDir).length;
    const ancient = await send(receiver.url, event('a-2019', '2019-03-01T00:00:00Z'), 'd-2019');
    expect(ancient.status).toBe(422);
    expect(ancient.body.detail).toMatch(
      /^timestamp 2019-03-01T00:00:00Z is \d{4} days old; the tolerance is 24 h \(events\.maxAgeHours, --max-age-hours\): a replay/,
    );
    expect((await send(receiver.url, event('a-ahead', NOW + 25 * HOUR))).body.detail).toMatch(
      /is 25 h ahead of this receiver's clock/,
    );
    const edge = event('a-edge', NOW - 24 * HOUR + 60_000);
    expect((await send(receiver.url, edge, 'd-edge')).status).toBe(200);
    expect((await send(receiver.url, event('a-late', NOW - 24 * HOUR - 60_000))).status).toBe(422);
    // Two minutes later the body accepted at the edge is too old: a replay of it is refused, not answered 200.
    await clock.advance(120_000);
    const replayed = await send(receiver.url, edge, 'd-edge-replay');
    expect(replayed.status).toBe(422);
    expect(readJournal(journalDir).map((e) => JSON.parse(e.body).data.action_id)).toHaveLength(before + 1);
    expect((await send(receiver.url, event('a-bad', 'yesterday'))).status).toBe(400);
  });

  it('a configured tolerance: 1 h refuses a body 2 h old and takes one 30 min old', async () => {
    const dir = join(t.dir, 'events-1h');
    const strict = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secrets: [NEW_SECRET],
      journal: new EventJournal(dir),
      maxBodyBytes: 4096,
      maxAgeMs: HOUR,
      clock,
      logger: quiet,
    });
    try {
      const old = await send(strict.url, event('a-2h', clock.now() - 2 * HOUR));
      expect(old).toMatchObject({ status: 422, body: { detail: expect.stringContaining('the tolerance is 1 h') } });
      expect((await send(strict.url, event('a-30m', clock.now() - HOUR / 2))).status).toBe(200);
      expect(readJournal(dir).map((e) => JSON.parse(e.body).data.action_id)).toEqual(['a-30m']);
    } finally {
      await strict.close();
    }
  });
});

describe('vwh events listen --max-age-hours', () => {
  it('takes the tolerance from the flag over events.maxAgeHours of the config', async () => {
    const t = tempDir('vwh-listen-');
    const secret = 'whsec_listen_0123456789abcdef';
    // The config says 1 h, the flag 3 h: a body 2 h old is taken, one 4 h old refused.
    const config = writeConfig(t.db, { events: { maxAgeHours: 1 } });
    const child = spawn(
      process.execPath,
      [
        ...['dist/src/cli/bin.js', 'events', 'listen', '--config', config, '--db', t.db],
        ...['--port', '0', '--max-age-hours', '3', '--log-format', 'json'],
      ],
      { env: { ...process.env, VWH_WEBHOOK_SECRETS: secret } },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let log = '';
      const url = await new Promise<string>((resolve) => {
        child.stderr.on('data', (d) => {
          log += d;
          const m = /"listening for webhook deliveries".*?"url":"(http:[^"]+)"/.exec(log);
          if (m) resolve(m[1] as string);
        });
      });
      const aged = (hours: number) =>
        JSON.stringify({
          event: 'action.failed',
          timestamp: new Date(Date.now() - hours * 3_600_000).toISOString(),
          data: { action_id: `a-${hours}h`, workflow_id: 'w', error: 'x' },
        });
      const send = (body: string) => post(`${url}/webhooks`, body, { 'x-webhook-signature': sign(secret, body) });
      expect((await send(aged(2))).status).toBe(200);
      const refused = await send(aged(4));
      expect(refused).toMatchObject({ status: 422, body: { detail: expect.stringContaining('the tolerance is 3 h') } });
      // the child wrote the line before it answered, but its stderr and the answer reach this process on two pipes
      // in either order: wait for the line (the test's timeout bounds the wait)
      await new Promise<void>((resolve) => {
        const seen = () => {
          if (/"webhook refused: timestamp outside the tolerance"/.test(log)) resolve();
          else child.stderr.once('data', () => setImmediate(seen));
        };
        seen();
      });
      expect(log).toMatch(/"webhook refused: timestamp outside the tolerance"/);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      t.cleanup();
    }
  }, 60_000);
});
