/**
 * A lock file shared by processes and machines: created with O_EXCL (which local and network file systems honour),
 * it names its holder (PID, host, start time, command, a token of this acquisition). It is stale when its holder is
 * gone: on this host its PID no longer exists; from another host (whose PIDs we cannot check) it is older than
 * `staleAfterMs`; a lock whose holder refreshes it while it works is stale on any host once it has not been
 * refreshed for `staleAfterMs`; an unreadable one (its writer died between create and write) once it is that old.
 * A stale lock is taken over by renaming it away first and checking that the file moved is the one judged, so of
 * several processes that judge it stale only one wins, and a lock taken afresh meanwhile is put back.
 * Used by the run lock (ops/lock.ts) and the lake's lock (export/lake-lock.ts).
 */
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { VwhError } from './errors.js';
import { makeFolders } from './folders.js';
import { processAlive } from './process.js';

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
  /** This acquisition's own mark, so a holder releases only its own lock (absent in older run locks). */
  token?: string;
  /** What the holder is doing, for readers who show it (the run lock: the run id). */
  job?: string;
}

export interface LockOptions {
  /** What the holder runs, named in messages to whoever finds the lock held. */
  command: string;
  /** An id of the holder's work, written in the lock for readers (the run lock: the run id). */
  job?: string;
  /** The clock of start times and ages (default: the wall clock). */
  now?: () => number;
  /** See the file's comment (default 12 h). */
  staleAfterMs?: number;
  /** The holder calls `refresh()` while it works: the lock's age counts from the last refresh, on every host. */
  refreshed?: boolean;
}

export interface HeldLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Marks the lock as still held (its file's mtime); at most once every few seconds touches the file. */
  refresh(): void;
  /** Removes the lock if it is still this holder's; idempotent. */
  release(): void;
}

const DEFAULT_STALE_MS = 12 * 3_600_000;
const REFRESH_MS = 5_000;
const ATTEMPTS = 3;

export function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the lock is no longer held, or undefined while it is. `holder` is what its file says (undefined when the file
 * is unreadable), `refreshedAt` the file's mtime.
 */
export function staleReason(
  holder: LockHolder | undefined,
  refreshedAt: number,
  now: number,
  options: Pick<LockOptions, 'staleAfterMs' | 'refreshed'> = {},
): string | undefined {
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_MS;
  const old = (age: number, what: string) =>
    age > staleAfterMs ? `${what}: ${minutes(age)} min old (limit ${minutes(staleAfterMs)} min)` : undefined;
  if (!holder) return old(now - refreshedAt, 'the lock file is unreadable (a holder killed while writing it)');
  if (holder.host === hostname() && holder.pid !== process.pid && !processAlive(holder.pid)) {
    return `its process ${holder.pid} is gone`;
  }
  if (options.refreshed) return old(now - refreshedAt, 'its holder stopped refreshing it');
  if (holder.host === hostname()) return undefined;
  return old(now - Date.parse(holder.startedAt), `it was taken on another host (${holder.host})`);
}

function minutes(ms: number): string {
  return String(Math.round((ms / 60_000) * 10) / 10);
}

/**
 * Takes the lock, or returns its live holder (undefined when its file is unreadable and not yet stale). Throws only
 * on file-system errors.
 */
export function tryLock(
  path: string,
  options: LockOptions,
): { lock: HeldLock; tookOver?: string } | { heldBy: LockHolder | undefined } {
  const now = options.now ?? Date.now;
  makeFolders(dirname(path));
  let holder: LockHolder | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const lock = create(path, options, now);
    if (lock) return { lock };
    const judged = fileOf(path);
    if (!judged) continue; // released meanwhile
    holder = readHolder(path);
    const reason = staleReason(holder, judged.mtimeMs, now(), options);
    if (!reason) return { heldBy: holder };
    const aside = `${path}.stale-${process.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // someone else moved it first
    }
    const moved = fileOf(aside);
    if (moved && moved.ino === judged.ino && moved.mtimeMs === judged.mtimeMs) {
      rmSync(aside, { force: true });
      const fresh = create(path, options, now);
      if (fresh) return { lock: fresh, tookOver: reason };
      continue;
    }
    // Between judging and renaming, another process replaced the stale lock with its own live one: put it back.
    try {
      linkSync(aside, path);
    } catch {
      // a third process holds it now; its lock stands
    }
    rmSync(aside, { force: true });
  }
  return { heldBy: readHolder(path) ?? holder };
}

function fileOf(path: string): { ino: number; mtimeMs: number } | undefined {
  try {
    const stat = statSync(path);
    return { ino: stat.ino, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

function create(path: string, options: LockOptions, now: () => number): HeldLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw new VwhError('INTERNAL', `Cannot create the lock ${path}: ${(error as Error).message}`, { cause: error });
  }
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date(now()).toISOString(),
    command: options.command,
    ...(options.job ? { job: options.job } : {}),
    token: `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  };
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  let released = false;
  let touched = Date.now();
  return {
    path,
    holder,
    refresh: () => {
      if (released || Date.now() - touched < REFRESH_MS) return;
      touched = Date.now();
      const at = new Date();
      utimesSync(path, at, at);
    },
    release: () => {
      if (released) return;
      released = true;
      if (readHolder(path)?.token === holder.token) rmSync(path, { force: true });
    },
  };
}
