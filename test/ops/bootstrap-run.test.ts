/**
 * Issue 11: "a confirmed new project is synced at the next run", end to end over real HTTP. The reference server
 * (port 0) bootstraps a new project created with POST /account/projects; its `project.bootstrap` callback reaches the
 * receiver of `vwh events listen`; the next `vwh run` confirms it with the team's key and syncs its prompts and chats,
 * although the team's config lists its `projects` (the new one is added). A callback for another team's project
 * (genuine, but the key cannot read it) and a forged one for an unknown id are rejected and add nothing.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { EventJournal, readJournal } from '../../src/ops/events/journal.js';
import { type Receiver, startReceiver } from '../../src/ops/events/receiver.js';
import { withOps } from '../../src/ops/ledger.js';
import { runNightly } from '../../src/ops/nightly.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { configureServices } from '../../src/reference/services/registry.js';
import { TODAY } from '../fixtures.js';
import { startWorld } from '../sync/support.js';
import { capture, quiet, tempDir, writeConfig } from './support.js';

const WINDOW_MS = 200;

async function call(server: ReferenceServer, method: 'GET' | 'POST', path: string, key?: string, body?: unknown) {
  const api = path.startsWith('/_reference') ? '' : '/api/public/v1';
  const res = await request(`${server.url}${api}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.body.json()) as { data?: Record<string, unknown> } & Record<string, unknown>;
  expect(res.statusCode, `${method} ${path}: ${JSON.stringify(json).slice(0, 300)}`).toBeLessThan(300);
  return json;
}

describe('a project bootstrapped with vwh as its webhook_url', () => {
  let server: ReferenceServer;
  let receiver: Receiver;
  let t: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    t = tempDir('vwh-bootstrap-run-');
    server = await startWorld({ seed: 29, projects: 2, prompts: 2, historyDays: 3, backgroundDelayMs: 60_000 });
    // The reference delivers callbacks to loopback addresses only behind this switch (tests and demos).
    configureServices(server.state, { allowHttpLoopback: true });
    receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      secrets: [],
      journal: new EventJournal(join(t.dir, 'events')),
      maxBodyBytes: 65_536,
      clock: systemClock,
      logger: quiet,
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
    t?.cleanup();
  });

  it('is confirmed and synced at the next run; a foreign or forged callback adds nothing', async () => {
    const key = server.demoApiKey ?? '';
    const keyFile = join(t.dir, 'key');
    writeFileSync(keyFile, key);
    const listed = ((await call(server, 'GET', '/projects', key)).data as unknown as Array<{ id: string }>).map(
      (p) => p.id,
    );
    expect(listed).toHaveLength(2);
    const [selected, notSelected] = listed as [string, string];
    const webhook_url = `${receiver.url}/bootstrap`;

    const created = await call(server, 'POST', '/account/projects', key, {
      brand_name: 'Quill Lamps',
      brand_url: 'https://quill-lamps.example',
      webhook_url,
    });
    const newProject = created.data?.project_id as string;
    // Another team's project, bootstrapped with the same receiver: a genuine callback the demo key cannot confirm.
    const other = await call(server, 'POST', '/account/create', undefined, { email: 'other@example.com' });
    const otherKey = (
      await call(server, 'POST', '/account/api-key', undefined, {
        email: 'other@example.com',
        password: other.data?.password,
      })
    ).data?.api_key as string;
    const foreign = (
      await call(server, 'POST', '/account/projects', otherKey, {
        brand_name: 'Foreign Brand',
        brand_url: 'https://foreign.example',
        webhook_url,
      })
    ).data?.project_id as string;
    // The bootstraps run in the reference's background, due after 60 simulated seconds.
    await call(server, 'POST', '/_reference/clock', undefined, { advance_seconds: 120 });
    const forged = randomUUID();
    const forgedRes = await request(webhook_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        event: 'project.bootstrap',
        project_id: forged,
        status: 'completed',
        error: null,
        timestamp: `${TODAY}T09:00:00Z`,
      }),
    });
    await forgedRes.body.dump();
    expect(forgedRes.statusCode).toBe(200);
    // The callbacks are delivered over HTTP after the bootstrap: wait (briefly) until both are in the journal.
    const journaled = () =>
      new Set(readJournal(join(t.dir, 'events')).map((e) => (JSON.parse(e.body) as { project_id: string }).project_id));
    for (let i = 0; i < 250 && !(journaled().has(newProject) && journaled().has(foreign)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(journaled()).toEqual(new Set([newProject, foreign, forged]));

    const config = writeConfig(t.db, {
      baseUrl: server.url,
      rateWindowMs: WINDOW_MS,
      threads: 1,
      teams: [{ team: 'demo', apiKeyFile: keyFile, projects: [selected] }],
    });
    const result = await runNightly(
      { config, db: t.db, today: TODAY, logFormat: 'json', rateWindowMs: WINDOW_MS },
      { logger: quiet, out: capture().out, summary: false },
    );
    expect(result.stages.map((s) => `${s.name}:${s.outcome.status}`)).toEqual([
      'events:succeeded',
      'sync:succeeded',
      'models:succeeded',
      'exports:succeeded',
      'publish:succeeded',
      'alerts:succeeded',
    ]);
    expect(result.stages[0]?.outcome.counts).toMatchObject({ journaled: 3, new: 3, confirmed: 1, rejected: 2 });

    const served = (await call(server, 'GET', `/projects/${newProject}/prompts`, key)).data as unknown as {
      prompts: Array<{ id: string }>;
    };
    expect(served.prompts.length).toBeGreaterThan(0);
    const landed = await withOps(t.db, async ({ session }) => ({
      events: await session.all<{ project_id: string; confirmation: string; team_id: string }>(
        "select project_id, confirmation, team_id from raw.webhook_events where event = 'project.bootstrap' order by project_id",
      ),
      projects: (await session.all<{ id: string }>('select id from raw.projects order by id')).map((r) => r.id),
      prompts: await session.all<{ project_id: string; n: number }>(
        'select project_id, count(*)::int as n from raw.prompts group by 1 order by 1',
      ),
      chats: await session.all<{ project_id: string; n: number }>(
        'select project_id, count(*)::int as n from raw.chats group by 1 order by 1',
      ),
    }));
    expect(landed.events).toEqual(
      [
        { project_id: newProject, confirmation: 'confirmed', team_id: 'demo' },
        { project_id: foreign, confirmation: 'rejected', team_id: 'demo' },
        { project_id: forged, confirmation: 'rejected', team_id: 'demo' },
      ].sort((a, b) => a.project_id.localeCompare(b.project_id)),
    );
    // The listed project and the confirmed new one; not the team's other project (the selection still holds), nor
    // the foreign or forged ids.
    expect(landed.projects).toEqual([selected, newProject].sort());
    expect(landed.prompts.map((r) => r.project_id)).toEqual([selected, newProject].sort());
    expect(landed.prompts.find((r) => r.project_id === newProject)?.n).toBe(served.prompts.length);
    expect(landed.chats.map((r) => r.project_id)).toEqual([selected, newProject].sort());
    expect(landed.chats.find((r) => r.project_id === newProject)?.n).toBeGreaterThan(0);
    expect(listed).not.toContain(newProject);
    expect([notSelected, foreign, forged].some((id) => landed.projects.includes(id))).toBe(false);
  });
});
