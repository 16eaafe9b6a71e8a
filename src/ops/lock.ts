/**
 * The run lock: one pipeline run at a time across processes and machines sharing the folder, a lock file
 * (core/lock-file.ts) beside the warehouse. Its holder never refreshes it, so a holder of another host is judged by
 * its start time against `schedule.staleLockMinutes` (default 12 h).
 */
import { VwhError } from '../core/errors.js';
import type { LockHolder } from '../core/lock-file.js';

/** `<db>.run.lock` beside the warehouse: whatever runs the pipeline on this warehouse takes it. */
export function lockPathFor(dbPath: string): string {
  return `${dbPath}.run.lock`;
}

/** The message for a run refused because another holds the lock (exit 4). */
export function lockedError(path: string, holder: LockHolder | undefined): VwhError {
  if (!holder) {
    return new VwhError(
      'DB_LOCKED',
      `Another run holds ${path}, whose file is unreadable (being written, or its writer was killed while writing ` +
        'it). Run again in a moment; remove the file if no vwh run is active.',
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
