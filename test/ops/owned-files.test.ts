/**
 * The files vwh keeps beside a warehouse, found damaged or written over by another program (issue 55, item 7): the
 * ledger's mirror is a copy, so a bad one is read as absent (vwh status reads the published copy's ledger, the next
 * run rewrites it); the embedded world's anchor is not, so a bad one is refused naming the file and what to do, never
 * read as absent (the world would restart under the old world's days).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { startEmbedded } from '../../src/ops/embedded.js';
import { readLedgerMirror } from '../../src/ops/ledger.js';
import { anchorPathOf, ledgerMirrorPath } from '../../src/ops/paths.js';
import { tempDir } from './support.js';

const t = tempDir('vwh-owned-');
afterAll(() => t.cleanup());

const run = {
  run_id: '20260301T023000Z-abc123',
  trigger: 'schedule',
  status: 'succeeded',
  started_at: '2026-03-01T02:30:00.000Z',
  ended_at: '2026-03-01T02:31:00.000Z',
  duration_ms: 60_000,
  exit_code: 0,
  error: null,
  stages: [{ stage: 'sync', status: 'succeeded', duration_ms: 50_000, error: null, counts: { requests: 3 } }],
};

describe('<warehouse>.runs.json', () => {
  it('is read when vwh wrote it, and read as absent when it is garbage or another shape', () => {
    const path = ledgerMirrorPath(t.db);
    writeFileSync(path, JSON.stringify({ runs: [run] }));
    expect(readLedgerMirror(t.db)).toEqual([run]);
    for (const bad of ['project_id,week\n1,2026-03-02\n', '{"runs": [1, 2]}', '{"runs": [{"run_id": 7}]}', '']) {
      writeFileSync(path, bad);
      expect(readLedgerMirror(t.db), bad).toBeUndefined();
    }
  });
});

describe('<warehouse>.embedded-world.json', () => {
  const world = { seed: 5, projects: 1, prompts: 2, historyDays: 5, rateWindowMs: 200, today: '2026-04-10' };

  it('refuses a damaged or foreign anchor with exit 64 naming the file, before any service starts', async () => {
    writeFileSync(t.db, ''); // the anchor is read only beside a warehouse that exists
    const path = anchorPathOf(t.db);
    for (const bad of ['{"seed": 5, "orig', 'project_id,week\n1,2026-03-02\n', '{"seed": "5", "origin": "x"}']) {
      writeFileSync(path, bad);
      const error = await startEmbedded(world, t.db).catch((e) => e);
      expect(error, bad).toBeInstanceOf(VwhError);
      expect((error as VwhError).exitCode).toBe(64);
      expect((error as VwhError).message).toContain(`${path} is not an anchor vwh wrote`);
      expect((error as VwhError).message).toContain('remove it together with the warehouse');
    }
  });
});
