/**
 * The published copy: what BI tools open. DuckDB lets one process write a file, and a writer cannot open a file
 * another process holds, so readers never touch the working warehouse. The copy is written beside its final name,
 * checked, made read-only and renamed into place: a reader sees the old file or the new one, never half of one, and
 * a reader holding the old file keeps it (the rename replaces the name, not the open file) until it reconnects.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { VwhError } from '../core/errors.js';
import { ensureWritableFile } from '../core/folders.js';
import { Database } from '../warehouse/duckdb.js';
import { warehouseInputs } from './paths.js';

export interface PublishResult {
  path: string;
  bytes: number;
  tables: number;
}

/**
 * Copies the (closed) warehouse to `target` atomically. `amend` changes the copy before it is checked and renamed
 * into place (`vwh run` closes its run in the copy's ledger: closeRunInCopy).
 */
export async function publishWarehouse(
  dbPath: string,
  target: string,
  amend?: (copy: string) => Promise<void>,
): Promise<PublishResult> {
  if (!existsSync(dbPath)) throw new VwhError('USAGE', `No warehouse at ${dbPath} to publish.`);
  // A WAL left beside the file holds committed work the file lacks: fold it in before copying the file alone.
  if (existsSync(`${dbPath}.wal`)) {
    const db = await Database.open(dbPath);
    try {
      await db.session.run('CHECKPOINT');
    } finally {
      db.close();
    }
  }
  // the one output check: the published copy never replaces the warehouse it copies (nor its WAL)
  ensureWritableFile(target, 'publish.path', warehouseInputs(dbPath));
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  rmSync(temp, { force: true });
  try {
    copyFileSync(dbPath, temp);
    if (amend) {
      await amend(temp);
      // closing the copy checkpointed it; a WAL left over would not follow the file through the rename
      if (existsSync(`${temp}.wal`)) throw new Error(`${temp}.wal was left after amending the copy`);
    }
    const tables = await checkCopy(temp);
    chmodSync(temp, 0o444);
    const fd = openSync(temp, 'r');
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, target);
    syncDir(dirname(target));
    return { path: target, bytes: statSync(target).size, tables };
  } catch (error) {
    rmSync(temp, { force: true });
    rmSync(`${temp}.wal`, { force: true });
    throw error instanceof VwhError
      ? error
      : new VwhError('INTERNAL', `Publishing ${target} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** Opens the copy read-only and counts its tables: a copy DuckDB cannot open is never renamed into place. */
async function checkCopy(path: string): Promise<number> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    return Number(await db.session.scalar('select count(*) from duckdb_tables()'));
  } finally {
    db.close();
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    fsyncSync(fd);
    closeSync(fd);
  } catch {
    // some file systems refuse fsync on a directory; the rename is still atomic
  }
}
