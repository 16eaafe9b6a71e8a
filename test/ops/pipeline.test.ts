/**
 * The pipeline's rules on stages of the tests' own making (real ledger in a real DuckDB file): a failed stage skips
 * what needs it and sets the exit code; a stop interrupts; a run killed before its end is closed by the next; the
 * run lock admits one run and takes a stale lock over.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { VwhError } from '../../src/core/errors.js';
import { tryLock } from '../../src/core/lock-file.js';
import { lastFinishedRunStart, withOps, writeLedger } from '../../src/ops/ledger.js';
import { lockPathFor } from '../../src/ops/lock.js';
import { runPipeline } from '../../src/ops/pipeline.js';
import type { RunContext, Stage, StageName, StageOutcome } from '../../src/ops/stage.js';
import { capture, quiet, tempDir } from './support.js';

function stage(name: StageName, needs: StageName[], outcome: StageOutcome | (() => never), seen: string[]): Stage {
  return {
    name,
    needs,
    run: async () => {
      seen.push(name);
      if (typeof outcome === 'function') outcome();
      return outcome as StageOutcome;
    },
  };
}

function context(
  db: string,
  clock: ManualClock,
  stop = new AbortController().signal,
): Omit<RunContext, 'runId' | 'outcomes' | 'plan'> {
  return {
    trigger: 'manual',
    dbPath: db,
    config: {},
    sync: {},
    modelsDir: '.',
    publishPath: undefined,
    clock,
    logger: quiet,
    out: capture().out,
    stop,
  };
}

async function ledger(db: string) {
  return withOps(db, ({ session }) =>
    session.all<{ run_id: string; stage: string; status: string; exit_code: number | null }>(
      'select run_id, stage, status, exit_code from ops.pipeline_runs order by started_at, stage',
    ),
  );
}

describe('runPipeline', () => {
  const dirs: Array<{ cleanup(): void }> = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup();
  });

  it('a failed stage skips the stages that need it, the others still run, and the exit code names the stage', async () => {
    const t = tempDir();
    dirs.push(t);
    const seen: string[] = [];
    const result = await runPipeline(
      [
        stage('sync', [], { status: 'partial', counts: { rejected_rows: 3 } }, seen),
        stage(
          'models',
          ['sync'],
          () => {
            throw new VwhError('MODEL_ERROR', 'marts.x: division by zero');
          },
          seen,
        ),
        stage('exports', ['models'], { status: 'succeeded' }, seen),
        stage('publish', ['models'], { status: 'succeeded' }, seen),
        stage('alerts', [], { status: 'succeeded' }, seen),
      ],
      context(t.db, new ManualClock()),
    );
    expect(seen).toEqual(['sync', 'models', 'alerts']);
    expect(result.exitCode).toBe(11);
    expect(result.status).toBe('failed');
    const rows = await ledger(t.db);
    expect(rows.map((r) => [r.stage, r.status, r.exit_code])).toEqual(
      expect.arrayContaining([
        ['run', 'failed', 11],
        ['sync', 'partial', null],
        ['models', 'failed', 11],
        ['exports', 'skipped', null],
        ['publish', 'skipped', null],
        ['alerts', 'succeeded', null],
      ]),
    );
    expect(await lastFinishedRunStart(t.db)).toBeUndefined();
  });

  it('a partial stage exits 2 and counts as a finished run; a refused key keeps exit 3', async () => {
    const t = tempDir();
    dirs.push(t);
    const clock = new ManualClock(Date.UTC(2026, 4, 1, 2, 30));
    const partial = await runPipeline([stage('sync', [], { status: 'partial' }, [])], context(t.db, clock));
    expect(partial.exitCode).toBe(2);
    expect(await lastFinishedRunStart(t.db)).toBe(clock.now());
    const refused = await runPipeline(
      [stage('sync', [], { status: 'failed', exitCode: 3, error: 'key refused' }, [])],
      context(t.db, clock),
    );
    expect(refused.exitCode).toBe(3);
  });

  it('a stop request interrupts the stages not yet started (exit 130), recorded as interrupted', async () => {
    const t = tempDir();
    dirs.push(t);
    const stop = new AbortController();
    const seen: string[] = [];
    const stopping: Stage = {
      name: 'sync',
      needs: [],
      run: async () => {
        seen.push('sync');
        stop.abort();
        return { status: 'succeeded' };
      },
    };
    const result = await runPipeline(
      [stopping, stage('models', ['sync'], { status: 'succeeded' }, seen)],
      context(t.db, new ManualClock(), stop.signal),
    );
    expect(seen).toEqual(['sync']);
    expect(result.exitCode).toBe(130);
    expect((await ledger(t.db)).map((r) => `${r.stage}:${r.status}`)).toEqual(
      expect.arrayContaining(['run:interrupted', 'models:interrupted', 'sync:succeeded']),
    );
  });

  it('a run killed before its end (left running) is marked interrupted by the next run', async () => {
    const t = tempDir();
    dirs.push(t);
    await writeLedger(t.db, {
      runId: 'killed',
      stage: 'run',
      trigger: 'schedule',
      startedAt: new Date(Date.UTC(2026, 0, 1)),
      endedAt: null,
      status: 'running',
      durationMs: null,
      exitCode: null,
      counts: null,
      error: null,
    });
    await runPipeline([stage('sync', [], { status: 'succeeded' }, [])], context(t.db, new ManualClock()));
    const killed = (await ledger(t.db)).find((r) => r.run_id === 'killed');
    expect(killed?.status).toBe('interrupted');
  });

  it('refuses a second run while the lock is held (exit 4, names the holder) and runs after release', async () => {
    const t = tempDir();
    dirs.push(t);
    const clock = new ManualClock();
    const held = tryLock(lockPathFor(t.db), { command: 'vwh schedule', now: () => clock.now() });
    if (!('lock' in held)) throw new Error('lock not taken');
    const refused = runPipeline([stage('sync', [], { status: 'succeeded' }, [])], context(t.db, clock));
    await expect(refused).rejects.toMatchObject({ code: 'DB_LOCKED', exitCode: 4 });
    await expect(refused).rejects.toThrow(new RegExp(`vwh schedule \\(PID ${process.pid} on ${hostname()}`));
    held.lock.release();
    const ok = await runPipeline([stage('sync', [], { status: 'succeeded' }, [])], context(t.db, clock));
    expect(ok.exitCode).toBe(0);
  });

  it('runs at once over a run lock that another program wrote over (a report written there), not 12 h later', async () => {
    const t = tempDir();
    dirs.push(t);
    writeFileSync(lockPathFor(t.db), 'project_id,project_name,week_start\n1,Acme,2026-03-02\n');
    const ok = await runPipeline([stage('sync', [], { status: 'succeeded' }, [])], context(t.db, new ManualClock()));
    expect(ok.exitCode).toBe(0);
  });
});

describe('the run lock', () => {
  it('takes over a lock whose process is gone (same host) or that is old (another host), not a live one', () => {
    const t = tempDir();
    try {
      const path = lockPathFor(t.db);
      const now = Date.UTC(2026, 5, 1, 3);
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
      const write = (holder: object) => writeFileSync(path, JSON.stringify(holder));
      write({ pid: Number(gone), host: hostname(), startedAt: new Date(now).toISOString(), command: 'x' });
      const a = tryLock(path, { command: 'a', now: () => now });
      expect('lock' in a && a.tookOver).toMatch(/process \d+ is gone/);
      if ('lock' in a) a.lock.release();

      write({ pid: 1, host: 'elsewhere', startedAt: new Date(now - 3_600_000).toISOString(), command: 'x' });
      expect('heldBy' in tryLock(path, { command: 'b', now: () => now, staleAfterMs: 2 * 3_600_000 })).toBe(true);
      const c = tryLock(path, { command: 'c', now: () => now, staleAfterMs: 30 * 60_000 });
      expect('lock' in c && c.tookOver).toMatch(/min old/);
      if ('lock' in c) c.lock.release();

      write({ pid: process.pid, host: hostname(), startedAt: new Date(now).toISOString(), command: 'live' });
      const d = tryLock(path, { command: 'd', now: () => now + 10 * 86_400_000 });
      expect('heldBy' in d && d.heldBy?.command).toBe('live');
    } finally {
      t.cleanup();
    }
  });
});
