/**
 * The run lock: one pipeline run at a time across processes and machines sharing the folder, a lock file
 * (core/lock-file.ts) beside the warehouse. Its holder never refreshes it, so a holder of another host is judged by
 * its start time against `schedule.staleLockMinutes` (default 12 h).
 */
import { statSync } from 'node:fs';
import { VwhError } from '../core/errors.js';
import { type LockHolder, readHolder, staleReason } from '../core/lock-file.js';

/** `<db>.run.lock` beside the warehouse: whatever runs the pipeline on this warehouse takes it. */
export function lockPathFor(dbPath: string): string {
  return `${dbPath}.run.lock`;
}

/** The message for a run refused because another holds the lock (exit 4). */
export function lockedError(path: string, holder: LockHolder | undefined): VwhError {
  if (!holder) {
    return new VwhError(
      'DB_LOCKED',
      `Another run may hold ${path}: the file is empty or cut short (being written, or its writer was killed while ` +
        'writing it). Run again in a minute: a lock left so for a minute is taken over by the next run.',
    );
  }
  return new VwhError(
    'DB_LOCKED',
    `Another run holds ${path}: ${holder.command} (PID ${holder.pid} on ${holder.host}, since ${holder.startedAt}). ` +
      'Wait for it to finish; if that process is gone, the next run takes the lock over.',
  );
}

/** The run lock's staleness limit from the config's `schedule.staleLockMinutes` (undefined: the default, 12 h). */
export function staleLockMs(config: { schedule?: { staleLockMinutes?: number } | undefined }): number | undefined {
  const minutes = config.schedule?.staleLockMinutes;
  return minutes ? minutes * 60_000 : undefined;
}

/**
 * The live holder of the warehouse's run lock (a `vwh run` in progress), or undefined when no lock is there or its
 * holder is gone (the next run takes it over).
 */
export function runInProgress(dbPath: string, now = Date.now(), staleAfterMs?: number): LockHolder | undefined {
  const path = lockPathFor(dbPath);
  const holder = readHolder(path);
  if (!holder) return undefined;
  const refreshedAt = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? now;
  return staleReason(holder, refreshedAt, now, { staleAfterMs }) ? undefined : holder;
}

/** `vwh run (manual), run <id>, PID 4242 on host since 2026-11-25T02:00:00.000Z`: a run lock's holder for a person. */
export function describeHolder(holder: LockHolder): string {
  return `${holder.command}${holder.job ? `, run ${holder.job}` : ''}, PID ${holder.pid} on ${holder.host} since ${holder.startedAt}`;
}
