/**
 * The loader's checkpoint between transactions: a `CHECKPOINT` once the WAL file is past its limit, under part of
 * DuckDB's memory limit.
 */
import { statSync } from 'node:fs';
import type { Session } from './session.js';

/**
 * The WAL size past which the loader checkpoints between transactions. DuckDB checkpoints by itself at a commit once
 * the WAL passes `checkpoint_threshold` (16 MB), but only when it can take the checkpoint lock alone, and during a
 * sync the rate budget's saves (an upsert on a connection of their own after every request) held it at nearly every
 * commit of the loader: an agency's backfill left a WAL of gigabytes to the close, which sits on the disk beside the
 * file and is replayed at the next open after a kill. A checkpoint every 256 MB costs about what one at the end does
 * (docs/lab/2026-11-code-constants.md#the-sync; DuckDB's cost by threshold: docs/lab/2026-11-sync-cpu.md).
 */
export const WAL_CHECKPOINT_BYTES = 256 * 2 ** 20;
/**
 * The share of DuckDB's `memory_limit` the loader's checkpoint runs under; the limit is set back after it. DuckDB
 * goes past its limit while it checkpoints (those moments were a long backfill's peak RSS); a lower limit makes it
 * evict cached blocks first, which lowered the peak at the same CPU (docs/lab/2026-11-code-constants.md#the-sync).
 */
const CHECKPOINT_MEMORY_SHARE = 0.5;
/** Tries of that checkpoint when another connection's statement holds the lock, and the wait between them. */
const CHECKPOINT_TRIES = 10;
const CHECKPOINT_RETRY_MS = 25;

/**
 * A `CHECKPOINT` once the WAL is past its limit (see WAL_CHECKPOINT_BYTES). It needs the checkpoint lock alone too,
 * so it is tried again while another connection's statement holds it; a checkpoint that does not happen is no failure
 * (the WAL stays for the next try, and the close checkpoints it). Each try runs under part of the memory limit
 * (CHECKPOINT_MEMORY_SHARE).
 */
export async function checkpointIfLarge(session: Session, wal: { file: string; limitBytes: number }): Promise<void> {
  if (walBytes(wal.file) < wal.limitBytes) return;
  for (let attempt = 0; attempt < CHECKPOINT_TRIES; attempt++) {
    // Lowered for the attempt alone: between tries other connections write at the full limit.
    const restore = await lowerMemoryLimit(session);
    try {
      await session.run('CHECKPOINT');
      return;
    } catch {
      // Another connection's write holds the checkpoint lock: tried again below.
    } finally {
      if (restore) await session.run(`SET memory_limit = '${restore}'`).catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_RETRY_MS));
  }
}

/**
 * Halves DuckDB's `memory_limit` for a checkpoint (see CHECKPOINT_MEMORY_SHARE) and returns the value to restore;
 * undefined when it could not (the checkpoint then runs at the full limit).
 */
async function lowerMemoryLimit(session: Session): Promise<string | undefined> {
  try {
    const current = String(await session.scalar(`SELECT current_setting('memory_limit')`));
    const bytes = memoryBytes(current);
    if (bytes === undefined) return undefined;
    await session.run(`SET memory_limit = '${Math.floor((bytes * CHECKPOINT_MEMORY_SHARE) / 1024)}KiB'`);
    return current;
  } catch {
    return undefined;
  }
}

const MEMORY_UNITS: Record<string, number> = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };

/** Bytes of a memory size as DuckDB's `current_setting('memory_limit')` spells it (`244.1 MiB`); undefined otherwise. */
export function memoryBytes(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * (MEMORY_UNITS[match[2] as string] as number);
}

/** The WAL file's size in bytes; 0 when there is none (no change since the last checkpoint). */
export function walBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
