/**
 * `_manifest.lock`: the one lock of a lake, held while a writer publishes (journal, renames, manifests) and while
 * anyone recovers a dead writer's publish. A lock file (core/lock-file.ts) its holder refreshes while it works, so
 * one left by a dead process of this host is broken at once, and any other once it has not been refreshed for
 * LOCK_STALE_MS.
 */
import { join } from 'node:path';
import { VwhError } from '../../core/errors.js';
import { tryLock } from '../../core/lock-file.js';

export const LOCK_FILE = '_manifest.lock';
const LOCK_STALE_MS = 120_000;
const LOCK_WAIT_MS = 60_000;

/** What the holder of the lock may call while it works, so that a long publish never looks dead. */
export interface LakeLock {
  refresh(): void;
}

/** Runs `fn` holding the lake's lock; waits up to a minute for another holder, then fails with DB_LOCKED. */
export async function withLakeLock<T>(root: string, fn: (lock: LakeLock) => T | Promise<T>): Promise<T> {
  const path = join(root, LOCK_FILE);
  const start = Date.now();
  for (;;) {
    const taken = tryLock(path, { command: 'lake export', staleAfterMs: LOCK_STALE_MS, refreshed: true });
    if ('lock' in taken) {
      try {
        return await fn(taken.lock);
      } finally {
        taken.lock.release();
      }
    }
    if (Date.now() - start > LOCK_WAIT_MS) {
      throw new VwhError(
        'DB_LOCKED',
        `Another export holds ${path} for more than a minute; wait, or remove the file if no export is running.`,
      );
    }
    await new Promise((r) => setTimeout(r, 25 + Math.random() * 50));
  }
}
