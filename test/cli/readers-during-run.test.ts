/**
 * Readers while `vwh run` holds the warehouse: a real `vwh run` child, paused (SIGSTOP) once it holds the
 * warehouse, and the readers as real children beside it. `vwh query` and `vwh report` answer from the published copy
 * with exit 0 and the rows the warehouse had before the run (the copy the first run published), naming on stderr
 * the file and the run; `vwh doctor` reports the run in progress instead of FAIL; `vwh status` shows the run in
 * progress and the previous run as it ended, never a stale `running`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusReport } from '../../src/ops/status.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../ops/support.js';
import { start, vwh } from './support.js';

const t = tempDir('vwh-readers-');
const config = join(t.dir, 'vwh.config.json');
const published = join(t.dir, 'published', 'w.duckdb');
const world = ['--seed', '5', '--projects', '1', '--prompts', '2', '--history-days', '5', '--rate-window-ms', '200'];
const run = (today: string) =>
  start(['run', '--db', t.db, '--config', config, '--today', today, '--log-format', 'json', ...world], { cwd: t.dir });
const SQL = 'select project_id, count(*) as n, max(date) as newest from marts.brand_visibility_daily group by all';

let firstRun = '';
let before = { query: '', report: '' };

beforeAll(async () => {
  // the embedded world's days are in April, the wall clock is not: freshness must not be what these tests judge
  writeFileSync(
    config,
    JSON.stringify({
      freshness: { warn_after: { count: 5000, period: 'day' }, error_after: { count: 5000, period: 'day' } },
      // the readers read the published copy and the warehouse, never the lake or the HTML report
      exports: {},
    }),
  );
  const first = await run('2026-04-10').done;
  expect(first.code, first.stderr).toBe(0);
  const db = await Database.open(t.db, { access_mode: 'READ_ONLY' });
  try {
    firstRun = String(await db.session.scalar("select run_id from ops.pipeline_runs where stage = 'run'"));
  } finally {
    db.close();
  }
  const query = await vwh(['query', '--db', t.db, '--format', 'csv', SQL], { cwd: t.dir });
  const report = await vwh(
    ['report', 'share_of_voice', '--db', t.db, '--format', 'csv', '--out', join(t.dir, 'before.csv')],
    { cwd: t.dir },
  );
  expect([query.code, report.code]).toEqual([0, 0]);
  before = { query: query.stdout, report: readFileSync(join(t.dir, 'before.csv'), 'utf8') };
}, 120_000);
afterAll(() => t.cleanup());

describe('the published copy on its own (a monitor on the BI host)', () => {
  it('says the run it holds succeeded, with the stages after the copy named as such', async () => {
    const check = await vwh(['status', '--check', '--db', published, '--config', config], { cwd: t.dir });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(new RegExp(`^OK the last run ${esc(firstRun)} succeeded`));
    const status = await vwh(['status', '--json', '--db', published, '--config', config], { cwd: t.dir });
    expect(status.code, status.stderr).toBe(0);
    const run = JSON.parse(status.stdout).runs[0];
    expect(run).toMatchObject({ run_id: firstRun, status: 'succeeded', exit_code: 0, error: null });
    expect(run.ended_at).not.toBeNull();
    expect(run.stages.map((s: { stage: string; status: string }) => `${s.stage}:${s.status}`)).toEqual([
      'events:succeeded',
      'sync:succeeded',
      'models:succeeded',
      'exports:skipped', // no exports in this config
      'publish:succeeded',
      'alerts:skipped',
    ]);
    expect(run.stages.at(-1).error).toMatch(/^after this copy: .*outcome is in the warehouse's ledger/);
    // the warehouse's own ledger has the whole run, alerts included
    const whole = await vwh(['status', '--json', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(JSON.parse(whole.stdout).runs[0].stages.at(-1)).toMatchObject({ stage: 'alerts', status: 'succeeded' });
  });
});

describe('readers while vwh run holds the warehouse', () => {
  it('query, report, doctor and status answer (exit 0) from the published copy and say so; --max-age judges staleness', async () => {
    const second = run('2026-04-11');
    try {
      // 'run started' is logged once the ledger row is written: the run's DuckDB instance holds the file from then on
      await until(() => /"msg":"run started"/.test(second.output()), 60_000);
      const runId = /"msg":"run started","run_id":"([^"]+)"/.exec(second.output())?.[1];
      expect(runId).toBeDefined();
      second.child.kill('SIGSTOP');
      const held = new RegExp(
        `^vwh: ${esc(t.db)} is held by vwh run \\(manual\\), run ${esc(runId ?? '')}, PID ${second.child.pid} on .*; ` +
          `reading the published copy ${esc(published)}, as of run ${esc(firstRun)}, published \\S+$`,
      );

      const query = await vwh(['query', '--db', t.db, '--format', 'csv', SQL], { cwd: t.dir });
      expect(query.code, query.stderr).toBe(0);
      expect(query.stdout).toBe(before.query);
      expect(query.stdout.split('\n').length).toBeGreaterThan(2);
      expect(query.stderr.split('\n')[0]).toMatch(held);

      const out = join(t.dir, 'during.csv');
      const report = await vwh(['report', 'share_of_voice', '--db', t.db, '--format', 'csv', '--out', out], {
        cwd: t.dir,
      });
      expect(report.code, report.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(before.report);
      expect(report.stderr.split('\n')[0]).toMatch(held);

      const arrow = await vwh(
        ['export', 'arrow', '--db', t.db, '--out', join(t.dir, 'arrow'), '--tables', 'brand_visibility_daily'],
        {
          cwd: t.dir,
        },
      );
      expect(arrow.code, arrow.stderr).toBe(0);
      expect(arrow.stderr.split('\n')[0]).toMatch(held);
      expect(arrow.stdout).toMatch(/^arrow: 1 file, [1-9][\d,]* rows/);

      const doctor = await vwh(['doctor', '--db', t.db, '--config', config], { cwd: t.dir });
      expect(doctor.code, doctor.stdout).toBe(0);
      expect(doctor.stdout).toMatch(
        new RegExp(
          `^OK +warehouse +${esc(t.db)}: a run is in progress \\(vwh run \\(manual\\), run ${esc(runId ?? '')}, PID`,
          'm',
        ),
      );
      expect(doctor.stdout).not.toMatch(/^FAIL/m);

      const status = await vwh(['status', '--db', t.db, '--config', config], { cwd: t.dir });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(
        new RegExp(`^Run in progress: ${esc(runId ?? '')}  vwh run \\(manual\\), PID`, 'm'),
      );
      const last = status.stdout.slice(status.stdout.indexOf('Last runs:'), status.stdout.indexOf('Freshness:'));
      // the run that made the published copy, as it ended (the ledger beside the warehouse), never a stale running
      expect(last).toMatch(new RegExp(`  ${esc(firstRun)}  manual +succeeded `));
      expect(last).not.toMatch(/running/);
      expect(status.stderr.split('\n')[0]).toMatch(held);

      const check = await vwh(['status', '--check', '--db', t.db, '--config', config], { cwd: t.dir });
      expect(check.code).toBe(0);
      expect(check.stdout).toMatch(
        new RegExp(`^OK the last run ${esc(firstRun)} succeeded; .*; run ${esc(runId ?? '')} in progress since `),
      );
    } finally {
      second.child.kill('SIGCONT');
    }
    const ended = await second.done;
    expect(ended.code, ended.stderr).toBe(0);
    // after it: --max-age 2h is met now, and three hours later the data is stale (exit 5, not partial's 2)
    const fresh = await vwh(['status', '--check', '--max-age', '2h', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(fresh.code, fresh.stdout).toBe(0);
    const later = await statusReport({
      db: t.db,
      error_after: { count: 5000, period: 'day' },
      now: Date.now() + 3 * 3_600_000,
      max_age_ms: 2 * 3_600_000,
    });
    expect(later.check).toMatchObject({ status: 'stale', exit_code: 5 });
    expect(later.check.message).toMatch(/ended 3\.0 h ago, more than --max-age 2\.0 h/);
  }, 180_000);

  it('a run killed outright is interrupted in status, and status --check exits 1', async () => {
    const third = run('2026-04-12');
    // killed once the ledger (mirrored beside the warehouse) says the sync is running
    const mirror = `${t.db}.runs.json`;
    const syncing = () => {
      try {
        return JSON.parse(readFileSync(mirror, 'utf8')).runs[0].stages.some(
          (s: { stage: string; status: string }) => s.stage === 'sync' && s.status === 'running',
        );
      } catch {
        return false;
      }
    };
    await until(syncing, 60_000);
    const runId = /"msg":"run started","run_id":"([^"]+)"/.exec(third.output())?.[1] ?? '';
    third.child.kill('SIGKILL');
    await third.done;

    const status = await vwh(['status', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(status.code).toBe(1);
    expect(status.stdout).not.toMatch(/Run in progress/);
    expect(status.stdout).toMatch(new RegExp(`  ${esc(runId)}  manual +interrupted `));
    expect(status.stdout).not.toMatch(/running/);

    const check = await vwh(['status', '--check', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(new RegExp(`^INTERRUPTED the last run ${esc(runId)} interrupted: the process ended`));
    const json = await vwh(['status', '--check', '--json', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(JSON.parse(json.stdout).check).toMatchObject({ status: 'interrupted', exit_code: 1 });

    const bad = await vwh(['status', '--check', '--max-age', 'a day', '--db', t.db], { cwd: t.dir });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--max-age must be a duration such as 90m, 26h or 2d, got "a day"/);
  }, 180_000);
});

function esc(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
