/**
 * The run lock: one pipeline run at a time across processes and machines sharing the folder. A file created with
 * O_EXCL holds the holder's PID, host and start time. A lock is stale when its holder is gone: on the same host its
 * PID no longer exists; from another host (whose PIDs we cannot check) it is older than `staleAfterMs`. A stale
 * lock is taken over by renaming it away first, so of two processes that both judge it stale only one wins.
 */
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { VwhError } from '../core/errors.js';
import { processAlive } from '../core/process.js';

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
}

export interface RunLock {
  readonly path: string;
  release(): void;
}

export interface LockOptions {
  command: string;
  now: () => number;
  staleAfterMs?: number;
}

/** `<db>.run.lock` beside the warehouse: whatever runs the pipeline on this warehouse takes it. */
export function lockPathFor(dbPath: string): string {
  return `${dbPath}.run.lock`;
}

export function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Why `holder` no longer holds the lock, or undefined while it does. */
export function staleReason(holder: LockHolder | undefined, now: number, staleAfterMs: number): string | undefined {
  if (!holder) return 'the lock file is unreadable (a holder killed while writing it)';
  if (holder.host === hostname()) {
    return processAlive(holder.pid) ? undefined : `its process ${holder.pid} is gone`;
  }
  const age = now - Date.parse(holder.startedAt);
  return age > staleAfterMs
    ? `it is ${Math.round(age / 60_000)} min old (another host, limit ${staleAfterMs / 60_000} min)`
    : undefined;
}

/** Takes the lock, or returns its live holder. Throws only on file-system errors. */
export function tryLock(
  path: string,
  options: LockOptions,
): { lock: RunLock; tookOver?: string } | { heldBy: LockHolder } {
  const staleAfterMs = options.staleAfterMs ?? 12 * 3_600_000;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    const lock = create(path, options);
    if (lock) return { lock };
    const holder = readHolder(path);
    const reason = staleReason(holder, options.now(), staleAfterMs);
    if (!reason) {
      if (holder) return { heldBy: holder };
      continue;
    }
    const aside = `${path}.stale-${process.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // someone else moved it first
    }
    const moved = readHolder(aside);
    if (moved && holder && moved.pid === holder.pid && moved.startedAt === holder.startedAt) {
      rmSync(aside, { force: true });
      const fresh = create(path, options);
      if (fresh) return { lock: fresh, tookOver: reason };
      continue;
    }
    // Between reading and renaming, another process replaced the stale lock with its own live one: put it back.
    try {
      linkSync(aside, path);
    } catch {
      // a third process holds it now; its lock stands
    }
    rmSync(aside, { force: true });
  }
  const holder = readHolder(path);
  if (holder) return { heldBy: holder };
  throw new VwhError('INTERNAL', `Could not take the run lock ${path}; remove it if no vwh run is active.`);
}

function create(path: string, options: LockOptions): RunLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw new VwhError('INTERNAL', `Cannot create the run lock ${path}: ${(error as Error).message}`, { cause: error });
  }
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date(options.now()).toISOString(),
    command: options.command,
  };
  writeSync(fd, `${JSON.stringify(holder)}\n`);
  fsyncSync(fd);
  closeSync(fd);
  let released = false;
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      const current = readHolder(path);
      if (current?.pid === holder.pid && current.startedAt === holder.startedAt) rmSync(path, { force: true });
    },
  };
}

/** The message for a run refused because another holds the lock (exit 4). */
export function lockedError(path: string, holder: LockHolder): VwhError {
  return new VwhError(
    'DB_LOCKED',
    `Another run holds ${path}: ${holder.command} (PID ${holder.pid} on ${holder.host}, since ${holder.startedAt}). ` +
      'Wait for it to finish; if that process is gone, the next run takes the lock over.',
  );
}
