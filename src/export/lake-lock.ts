/**
 * `_manifest.lock`: the one lock of a lake, held while a writer publishes (journal, renames, manifests) and while
 * anyone recovers a dead writer's publish. Created with O_EXCL (which local and network file systems honour); it
 * names its owner, so a lock left by a dead process of this host is broken at once, and one of another host when
 * it has not been refreshed for LOCK_STALE_MS (a live holder refreshes it while it works).
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { VwhError } from '../core/errors.js';
import { processAlive } from '../core/process.js';

export const LOCK_FILE = '_manifest.lock';
const LOCK_STALE_MS = 120_000;
const LOCK_WAIT_MS = 60_000;
/** How often a holder touches the lock while it works (well under LOCK_STALE_MS). */
const REFRESH_MS = 5_000;

interface LockOwner {
  host: string;
  pid: number;
  token: string;
}

/** What the holder of the lock may call while it works, so that a long publish never looks dead. */
export interface LakeLock {
  refresh(): void;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch {
    // empty (its writer died between create and write) or gone: judged by age alone
    return undefined;
  }
}

function isAbandoned(path: string): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(path).mtimeMs;
  } catch {
    return false;
  }
  const owner = readOwner(path);
  if (owner?.host === hostname() && owner.pid !== process.pid && !processAlive(owner.pid)) return true;
  return age > LOCK_STALE_MS;
}

/**
 * Breaks an abandoned lock: renamed aside first (only one breaker wins the rename), then checked again, so a lock
 * taken afresh by someone else in the meantime is put back instead of removed.
 */
function breakLock(path: string): void {
  const aside = `${path}.broken-${process.pid}-${Date.now()}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (isAbandoned(aside)) rmSync(aside, { force: true });
  else {
    try {
      renameSync(aside, path);
    } catch {
      rmSync(aside, { force: true });
    }
  }
}

/** Runs `fn` holding the lake's lock; waits up to a minute for another holder, then fails with DB_LOCKED. */
export async function withLakeLock<T>(root: string, fn: (lock: LakeLock) => T | Promise<T>): Promise<T> {
  const path = join(root, LOCK_FILE);
  mkdirSync(root, { recursive: true });
  const owner: LockOwner = { host: hostname(), pid: process.pid, token: `${Date.now()}-${Math.random()}` };
  const start = Date.now();
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, JSON.stringify(owner));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (isAbandoned(path)) breakLock(path);
      else if (Date.now() - start > LOCK_WAIT_MS) {
        throw new VwhError(
          'DB_LOCKED',
          `Another export holds ${path} for more than a minute; wait, or remove the file if no export is running.`,
        );
      } else await new Promise((r) => setTimeout(r, 25 + Math.random() * 50));
    }
  }
  let touched = Date.now();
  const lock: LakeLock = {
    refresh() {
      if (Date.now() - touched < REFRESH_MS) return;
      touched = Date.now();
      const now = new Date();
      utimesSync(path, now, now);
    },
  };
  try {
    return await fn(lock);
  } finally {
    if (readOwner(path)?.token === owner.token) rmSync(path, { force: true });
  }
}
