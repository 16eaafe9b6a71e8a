/**
 * `vwh schedule` as processes (the built CLI, a reference server on port 0): two started together on a fresh
 * warehouse catch up the missed night once between them; a SIGTERM during a run stops it at a safe point, records
 * it as interrupted and exits 0; `--events-port` receives webhook deliveries into the journal in the same process.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msToDay } from '../../src/core/days.js';
import { readJournal } from '../../src/ops/events/journal.js';
import { withOps } from '../../src/ops/ledger.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { startWorld } from '../sync/support.js';
import { tempDir, writeConfig } from './support.js';

/** Resolves with the first match of `pattern` in the growing log, polled every 50 ms. */
function waitFor(log: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve) => {
    const check = () => {
      const m = log().match(pattern);
      if (m) resolve(m);
      else setTimeout(check, 50);
    };
    check();
  });
}

const BIN = 'dist/src/cli/bin.js';

function schedule(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'schedule', '--log-format', 'json', ...args], { env });
  let log = '';
  child.stderr.on('data', (d) => {
    log += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, log: () => log };
}

describe('vwh schedule across processes', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    // The reference's day is today, so that the processes' own clock (the real one) agrees with it.
    server = await startWorld({ today: msToDay(Date.now()), projects: 1, prompts: 2, historyDays: 4 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('two schedulers started together on a fresh warehouse run the missed night once', async () => {
    const t = tempDir('vwh-sched-');
    try {
      const config = writeConfig(t.db, {
        baseUrl: server.url,
        rateWindowMs: 400,
        exports: {},
        publish: { enabled: false },
      });
      const env = { ...process.env, VWH_API_KEY: server.demoApiKey, VWH_TEAM: 'demo' };
      const a = schedule(['--once', '--config', config, '--db', t.db], env);
      const b = schedule(['--once', '--config', config, '--db', t.db], env);
      expect(await a.exited).toBe(0);
      expect(await b.exited).toBe(0);
      const runs = await withOps(t.db, ({ session }) =>
        session.all<{ trigger: string; status: string }>(
          "select trigger, status from ops.pipeline_runs where stage = 'run'",
        ),
      );
      expect(runs).toEqual([{ trigger: 'catch-up', status: 'succeeded' }]);
      expect(`${a.log()}${b.log()}`).toMatch(/scheduled run did not start|run not needed|held by another run/);
    } finally {
      t.cleanup();
    }
  }, 300_000);

  it('SIGTERM during a run: the run is recorded interrupted and the process exits 0', async () => {
    const t = tempDir('vwh-sched-');
    try {
      const config = writeConfig(t.db, {
        baseUrl: server.url,
        rateWindowMs: 2000,
        rateLimit: 2,
        exports: {},
        publish: { enabled: false },
      });
      const p = schedule(['--config', config, '--db', t.db], { ...process.env, VWH_API_KEY: server.demoApiKey });
      await new Promise<void>((resolve) => {
        const check = () => (/"sync plan"/.test(p.log()) ? resolve() : setTimeout(check, 100));
        check();
      });
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      const rows = await withOps(t.db, ({ session }) =>
        session.all<{ stage: string; status: string }>('select stage, status from ops.pipeline_runs order by stage'),
      );
      // The stage in hand finishes its unit; the stages after it never start.
      expect(rows).toEqual(
        expect.arrayContaining([
          { stage: 'run', status: 'interrupted' },
          { stage: 'alerts', status: 'interrupted' },
        ]),
      );
    } finally {
      t.cleanup();
    }
  }, 300_000);

  it('--events-port receives signed deliveries into the journal the runs ingest, and stops on SIGTERM (exit 0)', async () => {
    const t = tempDir('vwh-sched-');
    try {
      const secret = 'whsec_schedule_0123456789';
      const config = writeConfig(t.db, {});
      // A firing far away and no catch-up: the process only listens.
      const p = schedule(
        ['--config', config, '--db', t.db, '--cron', '0 0 1 1 *', '--catch-up', 'skip', '--events-port', '0'],
        { ...process.env, VWH_WEBHOOK_SECRETS: secret },
      );
      const [, url] = await waitFor(p.log, /"listening for webhook deliveries".*?"url":"(http:[^"]+)"/);
      const body = JSON.stringify({
        event: 'action.completed',
        timestamp: new Date().toISOString(),
        data: { action_id: 'a-1', workflow_id: 'w-1', result: { title: 't', content: 'c' } },
      });
      const post = (signature: string) =>
        fetch(`${url}/webhooks`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
        });
      expect((await post('0'.repeat(64))).status).toBe(401);
      expect((await post(createHmac('sha256', secret).update(body).digest('hex'))).status).toBe(200);
      expect(readJournal(join(t.dir, 'events')).map((e) => e.event)).toEqual(['action.completed']);
      expect(p.log()).not.toContain(secret);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      t.cleanup();
    }
  }, 60_000);
});
