/**
 * A lock file shared by processes and machines: created with O_EXCL (which local and network file systems honour),
 * it names its holder (PID, host, start time, command, a token of this acquisition). It is stale when its holder is
 * gone: on this host its PID no longer exists; from another host (whose PIDs we cannot check) it is older than
 * `staleAfterMs`; a lock whose holder refreshes it while it works is stale on any host once it has not been
 * refreshed for `staleAfterMs`. A file that is not a lock vwh wrote (another program's output written over it) is
 * stale at once; an empty or cut-short one (its writer died between create and write, or is writing it now: the
 * holder writes it in the instant it creates it) once it is `PARTIAL_GRACE_MS` old, not `staleAfterMs` (12 h of
 * refused runs for a crash in that instant).
 * A stale lock is taken over by renaming it away first and checking that the file moved is the one judged, so of
 * several processes that judge it stale only one wins, and a lock taken afresh meanwhile is put back.
 * Used by the run lock (ops/lock.ts) and the lake's lock (export/lake/lock.ts).
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
/** How long an empty or cut-short lock may be one being written: a holder writes its lock as it creates it. */
export const PARTIAL_GRACE_MS = 60_000;
const REFRESH_MS = 5_000;
const ATTEMPTS = 3;

/**
 * What a lock file holds: its holder; `partial` when it is empty or the start of one of vwh's own (being written, or
 * its writer was killed while writing it); `foreign` when it is something else (another program wrote over it).
 */
export type LockContent = LockHolder | 'partial' | 'foreign';

export function readLock(path: string): LockContent | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isHolder(parsed) ? parsed : 'foreign';
  } catch {
    // not JSON: below
  }
  const start = text.trimEnd();
  return start === '' || '{"pid":'.startsWith(start) || start.startsWith('{"pid":') ? 'partial' : 'foreign';
}

function isHolder(value: unknown): value is LockHolder {
  const h = value as LockHolder;
  return (
    typeof h === 'object' &&
    h !== null &&
    Number.isInteger(h.pid) &&
    typeof h.host === 'string' &&
    typeof h.startedAt === 'string' &&
    typeof h.command === 'string'
  );
}

export function readHolder(path: string): LockHolder | undefined {
  const content = readLock(path);
  return typeof content === 'object' ? content : undefined;
}

/**
 * Why the lock is no longer held, or undefined while it is. `content` is what its file holds (`readLock`; undefined
 * when it could not be read at all), `refreshedAt` the file's mtime.
 */
export function staleReason(
  content: LockContent | undefined,
  refreshedAt: number,
  now: number,
  options: Pick<LockOptions, 'staleAfterMs' | 'refreshed'> = {},
): string | undefined {
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_MS;
  const old = (age: number, what: string, limit = staleAfterMs) =>
    age > limit ? `${what}: ${minutes(age)} min old (limit ${minutes(limit)} min)` : undefined;
  if (content === 'foreign') {
    return 'the file does not hold a lock vwh wrote (another program wrote over it), so no vwh run holds it';
  }
  if (content === undefined || content === 'partial') {
    return old(
      now - refreshedAt,
      'the lock file is empty or cut short (a holder killed while writing it)',
      Math.min(staleAfterMs, PARTIAL_GRACE_MS),
    );
  }
  const holder = content;
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
    const content = readLock(path);
    holder = typeof content === 'object' ? content : undefined;
    const reason = staleReason(content, judged.mtimeMs, now(), options);
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
