/**
 * Real damage for the tests of a damaged file (issue 24): a small warehouse whose one large table fills several
 * blocks, and bytes flipped in the middle of a file, where that table's data is (not the header or the catalog that
 * DuckDB reads on open), as a disk's bit rot or a torn write would.
 */
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { Database } from '../../src/warehouse/duckdb.js';

/** A warehouse at `path`: raw.chats (400,000 rows, some 7 MB, many blocks) and raw.projects (3 rows). */
export async function writeSmallWarehouse(path: string): Promise<void> {
  const db = await Database.open(path);
  try {
    await db.session.run('create schema raw');
    await db.session.run(
      'create table raw.chats as select range as id, md5(range::varchar) as text from range(400000)',
    );
    await db.session.run('create table raw.projects as select range as id from range(3)');
  } finally {
    db.close();
  }
}

/** Flips 32 bytes inside the block in the middle of `file` (256 KiB blocks): raw.chats's data, so the file opens. */
export function damageMiddleBlock(file: string): void {
  const offset = Math.floor(statSync(file).size / 2 / 262_144) * 262_144 + 1000;
  const fd = openSync(file, 'r+');
  try {
    const bytes = Buffer.alloc(32);
    readSync(fd, bytes, 0, 32, offset);
    writeSync(
      fd,
      bytes.map((b) => b ^ 0xff),
      0,
      32,
      offset,
    );
  } finally {
    closeSync(fd);
  }
}
