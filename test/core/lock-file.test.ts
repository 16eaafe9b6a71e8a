/** The one lock file of the run lock and the lake's lock: the staleness rules both rely on, on real files. */
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHolder, tryLock } from '../../src/core/lock-file.js';
import { tempDir } from '../fixtures.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('vwh-lock-').dir;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ago = (path: string, ms: number) => {
  const at = new Date(Date.now() - ms);
  utimesSync(path, at, at);
};

describe('lock file', () => {
  it('takes over an unreadable lock only once it is older than the limit', () => {
    const path = join(dir, 'x.lock');
    writeFileSync(path, '');
    const young = tryLock(path, { command: 'a', staleAfterMs: 60_000 });
    expect(young).toEqual({ heldBy: undefined });
    ago(path, 120_000);
    const old = tryLock(path, { command: 'a', staleAfterMs: 60_000 });
    expect('lock' in old && old.tookOver).toMatch(/empty or cut short/);
    expect(readHolder(path)?.command).toBe('a');
  });

  it('takes over an empty lock after a minute, not after the staleness limit of a live holder (12 h)', () => {
    const path = join(dir, 'x.lock');
    writeFileSync(path, '{"pi');
    expect(tryLock(path, { command: 'a' })).toEqual({ heldBy: undefined });
    ago(path, 2 * 60_000);
    const taken = tryLock(path, { command: 'a' });
    expect('lock' in taken && taken.tookOver).toMatch(/empty or cut short.*limit 1 min/);
  });

  it('takes over at once a file that is not a lock vwh wrote, whatever its age, and says so', () => {
    const path = join(dir, 'x.lock');
    for (const foreign of ['project_id,week_start\n1,2026-03-02\n', '{"runs": []}', '[1,2]', '{"pid": "7"}']) {
      writeFileSync(path, foreign);
      const taken = tryLock(path, { command: 'a' });
      expect('lock' in taken && taken.tookOver).toMatch(/does not hold a lock vwh wrote/);
      expect(readHolder(path)?.command).toBe('a');
      if ('lock' in taken) taken.lock.release();
    }
  });

  it('judges a refreshed lock of a live process by its last refresh, an unrefreshed one of this host never by age', () => {
    const path = join(dir, 'x.lock');
    // The parent process is alive and is not this process.
    const live = { pid: process.ppid, host: hostname(), startedAt: new Date(0).toISOString(), command: 'live' };
    writeFileSync(path, JSON.stringify(live));
    ago(path, 10 * 60_000);
    expect(tryLock(path, { command: 'b', staleAfterMs: 60_000 })).toMatchObject({ heldBy: { command: 'live' } });
    const taken = tryLock(path, { command: 'b', staleAfterMs: 60_000, refreshed: true });
    expect('lock' in taken && taken.tookOver).toMatch(/stopped refreshing/);
  });

  it('releases only its own lock', () => {
    const path = join(dir, 'x.lock');
    const first = tryLock(path, { command: 'a' });
    if (!('lock' in first)) throw new Error('not taken');
    // Someone judged it stale and took it over meanwhile.
    writeFileSync(path, JSON.stringify({ ...first.lock.holder, token: 'other' }));
    first.lock.release();
    expect(readHolder(path)?.token).toBe('other');
  });
});
