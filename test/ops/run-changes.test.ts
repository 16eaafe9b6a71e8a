/**
 * A run's summary says what it changed: a second run the same day lands no rows, builds no model, rewrites no lake
 * file and keeps the HTML report (not rewritten); one run id names the run in the ledger, the sync, the models'
 * run_results.json and the report's header; after SIGINT the run says so at once and ends with what was saved and
 * that the next run resumes. Real embedded services, real DuckDB, a real child process for the signal.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNightly } from '../../src/ops/nightly.js';
import type { PipelineResult } from '../../src/ops/pipeline.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { BIN } from '../fixtures.js';
import { capture, quiet, tempDir, tinyWorld } from './support.js';

describe('two runs the same day', () => {
  const t = tempDir('vwh-changes-');
  const runs: Array<{ result: PipelineResult; text: string }> = [];
  const report = join(t.dir, 'reports', 'report.html');
  let writtenAt = 0;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const { out, text } = capture();
      const flags = {
        ...tinyWorld(t.db, '2026-06-03'),
        logFormat: 'human' as const,
        world: { seed: 21, projects: 1, prompts: 2, historyDays: 4 },
      };
      const result = await runNightly(flags, { out, logger: quiet });
      runs.push({ result, text: text() });
      if (i === 0) writtenAt = statSync(report).mtimeMs;
    }
  }, 300_000);
  afterAll(() => t.cleanup());

  const line = (i: number, stage: string) =>
    runs[i]?.text.split('\n').find((l) => l.trimStart().startsWith(`${stage} `)) ?? '';

  it('the first says what it landed and built; the second that it found nothing new and kept the report', () => {
    expect(runs.map((r) => r.result.exitCode)).toEqual([0, 0]);
    expect(line(0, 'sync')).toMatch(/\d+\/\d+ units, \d+ requests; [\d,]+ rows landed:/);
    expect(runs[0]?.text).toMatch(/raw\.chats \d+/);
    expect(line(0, 'models')).toMatch(/[1-9]\d* built, 0 reused .*; \d+ days? re-processed \(2026-/);
    expect(line(0, 'exports')).toMatch(/lake [1-9]\d* files rewritten, 0 kept; HTML report written/);

    expect(line(1, 'sync')).toMatch(/no rows landed \(nothing new since the last sync\)/);
    expect(line(1, 'models')).toMatch(/ 0 built, [1-9]\d* reused \(no input changed\); no day re-processed/);
    expect(line(1, 'exports')).toMatch(/lake 0 files rewritten, [1-9]\d* kept; HTML report kept \(no model changed\)/);
    // kept: not written again
    expect(statSync(report).mtimeMs).toBe(writtenAt);
  });

  it('one run id in the ledger, the sync, run_results.json and the report header', async () => {
    const [first, second] = runs.map((r) => r.result.runId);
    const db = await Database.open(t.db, { access_mode: 'READ_ONLY' });
    try {
      const syncs = await db.session.all<{ run_id: string }>('select run_id from ops.sync_runs order by started_at');
      expect(syncs.map((r) => r.run_id)).toEqual([first, second]);
      const ledger = await db.session.all<{ run_id: string }>(
        "select distinct run_id from ops.pipeline_runs where stage = 'run' order by run_id",
      );
      expect(ledger.map((r) => r.run_id)).toEqual([first, second]);
    } finally {
      db.close();
    }
    const results = JSON.parse(readFileSync(join(t.dir, 'target', 'run_results.json'), 'utf8'));
    expect(results.metadata.run_id).toBe(second);
    // the report kept by the second run is the first run's, and says so
    expect(readFileSync(report, 'utf8')).toContain(`sync run ${first}`);
  });
});

describe('Ctrl-C during vwh run', () => {
  const t = tempDir('vwh-sigint-');
  afterAll(() => t.cleanup());

  it('is acknowledged at once; the run ends with what was saved and that the next run resumes, exit 130', async () => {
    // a sync slow enough to be stopped: 3 prompts x 30 days at 70 requests per 3 s
    const args = [BIN, 'run', '--db', t.db, '--config', tinyWorld(t.db, '2026-06-03').config as string];
    args.push('--seed', '8', '--projects', '1', '--prompts', '3', '--history-days', '30');
    args.push('--rate-window-ms', '3000', '--log-format', 'human');
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signalled = -1;
    child.stdout.on('data', (c) => {
      stdout += String(c);
    });
    child.stderr.on('data', (c) => {
      stderr += String(c);
      // the plan is printed: the sync is under way
      if (signalled < 0 && stderr.includes('plan for')) {
        signalled = stderr.length;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(code).toBe(130);
    // the acknowledgement comes before the sync's end
    const ack = stderr.indexOf('SIGINT received: stopping at a safe point');
    expect(ack).toBeGreaterThanOrEqual(signalled - 'plan for'.length);
    expect(ack).toBeLessThan(stderr.indexOf('sync interrupted'));
    expect(stdout).toMatch(/interrupted \(exit 130\)/);
    expect(stdout).toMatch(/Saved: \d+ of \d+ sync units/);
    expect(stdout).toMatch(/run` resumes where this one stopped/);
    expect(stdout).not.toContain('Query it next');
  }, 120_000);
});
