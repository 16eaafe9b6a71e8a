/**
 * `vwh status` and the alerts, on a warehouse filled by a real sync of a small world: freshness against the
 * config's warn_after/error_after, rows per table, budget and rejected rows of the latest sync, the ledger's runs; a
 * failing night POSTs one signed alert (never the API key) and runs the command, then stays quiet within the
 * suppression interval. Real HTTP receiver on port 0, real DuckDB.
 */

import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { SyncConfig } from '../../src/core/config.js';
import { addDays, dayToMs } from '../../src/core/days.js';
import { registerSecret } from '../../src/core/errors.js';
import { signAlert } from '../../src/ops/alerts.js';
import { withOps } from '../../src/ops/ledger.js';
import { runPipeline } from '../../src/ops/pipeline.js';
import type { RunContext, Stage } from '../../src/ops/stage.js';
import { alertsStage } from '../../src/ops/stages/alerts.js';
import { statusReport } from '../../src/ops/status.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { TODAY } from '../fixtures.js';
import { runSync, startWorld } from '../sync/support.js';
import { capture, quiet, tempDir } from './support.js';

interface Received {
  body: string;
  signature: string | undefined;
}

async function receiver(status = 200): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ body, signature: req.headers['x-vwh-signature'] as string | undefined });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
}

const failingSync = (message: string): Stage => ({
  name: 'sync',
  needs: [],
  run: async () => ({ status: 'failed', exitCode: 10, error: message }),
});

function ctx(db: string, config: SyncConfig, clock: ManualClock): Omit<RunContext, 'runId' | 'outcomes' | 'plan'> {
  return {
    trigger: 'schedule',
    dbPath: db,
    config,
    sync: {},
    modelsDir: '.',
    publishPath: undefined,
    clock,
    logger: quiet,
    out: capture().out,
    stop: new AbortController().signal,
  };
}

describe('vwh status and alerts', () => {
  const t = tempDir('vwh-status-');
  const dayAfter = dayToMs(addDays(TODAY, 1)) + 6 * 3_600_000;
  let apiKey = '';

  beforeAll(async () => {
    const server = await startWorld();
    apiKey = server.demoApiKey ?? '';
    const warehouse = await Warehouse.open(t.db);
    try {
      await runSync(server, warehouse);
    } finally {
      warehouse.close();
      await server.close();
    }
  }, 180_000);
  afterAll(() => t.cleanup());

  it('reports freshness per stream and project against warn_after and error_after, and exits 5 when stale (issue 56: 1 is a failed run)', async () => {
    const fresh = await statusReport({ db: t.db, now: dayAfter });
    expect(fresh.freshness.status).toBe('pass');
    expect(fresh.exit_code).toBe(0);
    const chats = fresh.freshness.streams.filter((s) => s.stream === 'chats');
    expect(chats.length).toBe(2); // one row per project of the 2-project world
    expect(chats.every((s) => s.newest_day === TODAY)).toBe(true);

    const limits = {
      warn_after: { count: 2, period: 'day' as const },
      error_after: { count: 5, period: 'day' as const },
    };
    const warn = await statusReport({ db: t.db, now: dayAfter + 3 * 86_400_000, ...limits });
    expect(warn.freshness.status).toBe('warn');
    expect(warn.exit_code).toBe(0);
    const stale = await statusReport({ db: t.db, now: dayAfter + 6 * 86_400_000, ...limits });
    expect(stale.freshness.status).toBe('error');
    expect(stale.exit_code).toBe(5);
    expect(stale.freshness.streams.find((s) => s.stream === 'chats')?.age_hours).toBeGreaterThan(5 * 24);
  });

  it('counts rows per table exactly, and shows the latest sync budget and rejected rows per team', async () => {
    const report = await statusReport({ db: t.db, now: dayAfter });
    const truth = await withOps(t.db, ({ session }) =>
      session.all<{ n: number }>('select count(*)::int as n from raw.chats'),
    );
    expect(report.tables.find((x) => x.schema === 'raw' && x.table === 'chats')?.rows).toBe(truth[0]?.n);
    expect(report.budget).toHaveLength(1);
    expect(report.budget[0]?.requests).toBeGreaterThan(0);
    expect(report.rejected_rows).toEqual([]);
    await withOps(t.db, ({ session }) =>
      session.run(
        `insert into ops.rejected_rows select run_id, team_id, 'chats', 'p', 'u', 'e', null, '[]', now() from ops.sync_runs`,
      ),
    );
    const after = await statusReport({ db: t.db, now: dayAfter });
    expect(after.rejected_rows.map((r) => [r.stream, r.rows])).toEqual([['chats', 1]]);
    expect(JSON.stringify(Object.keys(after))).toBe(
      JSON.stringify([
        'generated_at',
        'source',
        'run_in_progress',
        'runs',
        'freshness',
        'tables',
        'rejected_rows',
        'budget',
        'models_failed',
        'check',
        'exit_code',
      ]),
    );
  });

  it('a failing night sends one signed alert without the API key, runs the command, then is suppressed', async () => {
    registerSecret(apiKey);
    process.env.VWH_TEST_ALERT_SECRET = 'alert-secret-0123456789';
    const hook = await receiver();
    const commandOut = join(t.dir, 'alert.json');
    const config: SyncConfig = {
      alerts: {
        url: hook.url,
        secretEnv: 'VWH_TEST_ALERT_SECRET',
        command: `cat > ${commandOut}`,
        suppressMinutes: 60,
      },
    };
    const clock = new ManualClock(dayAfter);
    try {
      const first = await runPipeline(
        [failingSync(`the API said no to ${apiKey}`), alertsStage],
        ctx(t.db, config, clock),
      );
      expect(first.exitCode).toBe(10);
      expect(first.stages.find((s) => s.name === 'alerts')?.outcome.counts).toMatchObject({
        outcome: 'sent',
        problems: 1,
      });
      expect(hook.got).toHaveLength(1);
      const sent = hook.got[0] as Received;
      expect(sent.signature).toBe(signAlert('alert-secret-0123456789', sent.body));
      expect(sent.body).not.toContain(apiKey);
      const summary = JSON.parse(sent.body);
      expect(summary.problems).toEqual([
        expect.objectContaining({ type: 'stage_failed', stage: 'sync', exit_code: 10 }),
      ]);
      expect(readFileSync(commandOut, 'utf8')).toBe(sent.body);

      await clock.advance(30 * 60_000);
      const again = await runPipeline([failingSync('still failing'), alertsStage], ctx(t.db, config, clock));
      expect(again.stages.find((s) => s.name === 'alerts')?.outcome.counts).toMatchObject({ outcome: 'suppressed' });
      expect(hook.got).toHaveLength(1);

      // Stale data is a different problem: it pages at once.
      await clock.advance(10 * 86_400_000);
      await runPipeline([failingSync('still failing'), alertsStage], ctx(t.db, config, clock));
      expect(hook.got).toHaveLength(2);
      expect(JSON.parse(hook.got[1]?.body ?? '{}').problems.map((p: { type: string }) => p.type)).toContain('stale');
    } finally {
      hook.server.close();
    }
  });

  it("the command's environment holds no variable the config names as a key, whatever its name", async () => {
    registerSecret(apiKey);
    const saved = { ...process.env };
    // A team's key in a variable whose name says nothing of a key, the cluster's URL with its password, the key once
    // more under an unrelated name, and a variable the command may keep.
    Object.assign(process.env, {
      ACME_CREDS: apiKey,
      VWH_CLUSTER_URL: 'postgres://vwh:hunter2hunter2@db.example/vwh',
      BACKUP_OF_IT: `x${apiKey}`,
      HOOK_CHANNEL: 'ops-room',
    });
    const envOut = join(t.dir, 'alert.env');
    const config: SyncConfig = {
      teams: [{ team: 'acme', apiKeyEnv: 'ACME_CREDS' }],
      alerts: { command: `env > ${envOut}`, suppressMinutes: 0 },
    };
    try {
      const clock = new ManualClock(dayAfter + 80 * 86_400_000);
      const result = await runPipeline([failingSync('sync failed'), alertsStage], ctx(t.db, config, clock));
      expect(result.stages.find((s) => s.name === 'alerts')?.outcome.counts).toMatchObject({ outcome: 'sent' });
      const env = readFileSync(envOut, 'utf8');
      expect(env).toMatch(/^HOOK_CHANNEL=ops-room$/m);
      expect(env).toMatch(/^VWH_ALERT_FINGERPRINT=/m);
      expect(env).not.toMatch(/^(ACME_CREDS|VWH_CLUSTER_URL|BACKUP_OF_IT)=/m);
      expect(env).not.toContain(apiKey);
      expect(env).not.toContain('hunter2');
    } finally {
      process.env = saved;
    }
  });

  it('an alert the receiver refuses fails the alerts stage (exit 14 when nothing else failed)', async () => {
    const hook = await receiver(500);
    try {
      const clock = new ManualClock(dayAfter + 40 * 86_400_000);
      const result = await runPipeline(
        [{ name: 'sync', needs: [], run: async () => ({ status: 'succeeded' }) }, alertsStage],
        ctx(t.db, { alerts: { url: hook.url, suppressMinutes: 0 } }, clock),
      );
      expect(hook.got.length).toBe(1); // stale data: every stream is 40 days old
      expect(result.exitCode).toBe(14);
      expect(result.stages.find((s) => s.name === 'alerts')?.outcome.error).toMatch(/answered 500/);
    } finally {
      hook.server.close();
    }
  });
});
