/** The end of `vwh run`: a stage whose audits warned says so on its line, since the run still exits 0. */
import { describe, expect, it } from 'vitest';
import type { PipelineResult } from '../../src/ops/pipeline.js';
import { formatSummary } from '../../src/ops/summary.js';

function run(auditsWarned: number): PipelineResult {
  return {
    runId: 'r1',
    status: 'succeeded',
    exitCode: 0,
    stages: [
      { name: 'sync', outcome: { status: 'succeeded', counts: { requests: 12 } }, durationMs: 1200 },
      { name: 'models', outcome: { status: 'succeeded', counts: { audits_warned: auditsWarned } }, durationMs: 3000 },
    ],
  };
}

describe('the run summary', () => {
  it('names the warned audits on the models line, and says nothing when none warned', () => {
    const lines = (n: number) => formatSummary(run(n), { db: 'data/warehouse.duckdb' }).split('\n');
    expect(lines(2).find((l) => l.trim().startsWith('models'))).toMatch(
      /succeeded +3\.0 s {2}2 audits warned \(vwh status lists them\)$/,
    );
    expect(lines(1).find((l) => l.trim().startsWith('models'))).toMatch(/ 1 audit warned /);
    expect(lines(0).find((l) => l.trim().startsWith('models'))).toMatch(/succeeded +3\.0 s$/);
    expect(lines(2).find((l) => l.trim().startsWith('sync'))).toMatch(/succeeded +1\.2 s$/);
  });
});

describe('the summary of a failed run', () => {
  it('says what failed and what to do, never the queries of a good night', () => {
    const failed: PipelineResult = {
      runId: 'r2',
      status: 'failed',
      exitCode: 10,
      stages: [
        {
          name: 'sync',
          outcome: { status: 'failed', error: 'No API key for team north [AUTH_MISSING_KEY]' },
          durationMs: 5,
        },
        { name: 'models', outcome: { status: 'skipped', error: 'needs sync (failed)' }, durationMs: 0 },
      ],
    };
    const text = formatSummary(failed, { db: '/w.duckdb' });
    expect(text).not.toContain('Query it next');
    expect(text).toContain('The sync stage failed: No API key for team north [AUTH_MISSING_KEY]');
    expect(text).toContain('Not run: models');
    expect(text).toMatch(/docs\/errors\.md/);
  });
});
