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
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../ops/support.js';
import { requireBuilt, start, vwh } from './cli-support.js';

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
  requireBuilt();
  writeFileSync(config, '{}');
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

describe('readers while vwh run holds the warehouse', () => {
  it('query, report, doctor and status answer (exit 0) from the published copy and say so', async () => {
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
    } finally {
      second.child.kill('SIGCONT');
    }
    const ended = await second.done;
    expect(ended.code, ended.stderr).toBe(0);
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
