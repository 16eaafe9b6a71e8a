/**
 * `vwh query` runs whatever SQL it is given, so DuckDB itself must keep that SQL inside the warehouse: each statement
 * an adversarial pass used to overwrite the warehouse, empty another one, read local files or download an extension
 * fails, and leaves every file as it was.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { runQuery } from '../../src/ops/query.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';

const dir = tempDir('vwh-query-locked-').dir;
const warehouse = join(dir, 'warehouse.duckdb');
const other = join(dir, 'other.duckdb');
const keyFile = join(dir, 'key.txt');
const flags = { db: warehouse, format: 'csv' as const, maxRows: 50 };

async function fill(path: string, rows: number): Promise<void> {
  const db = await Database.open(path);
  try {
    await db.session.run('create schema raw');
    await db.session.run(
      `create table raw.chats as select range as id, 'answer ' || range as text from range(${rows})`,
    );
  } finally {
    db.close();
  }
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

async function rows(path: string): Promise<number> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    return Number(await db.session.scalar('select count(*) from raw.chats'));
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  await fill(warehouse, 7);
  await fill(other, 5);
  writeFileSync(keyFile, 'vwh_live_0123456789abcdef\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('vwh query is locked down by DuckDB', () => {
  it('still answers a query on the warehouse', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => {
      text += String(c);
    });
    expect(await runQuery('select count(*) as n from raw.chats', flags, out)).toBe(1);
    expect(text).toBe('n\n7\n');
  });

  const hostile: Array<[string, () => string]> = [
    ['COPY TO the warehouse file itself', () => `copy (select 'x') to '${warehouse}' (format csv)`],
    ['COPY TO another file', () => `copy (select 'x') to '${join(dir, 'out.csv')}' (format csv)`],
    ['ATTACH another warehouse read-write', () => `attach '${other}' as o (read_write)`],
    ['read another warehouse by path', () => `select count(*) from '${other}'`],
    ['read_text of a system file', () => `select * from read_text('/etc/passwd')`],
    ['read_blob of the key file', () => `select * from read_blob('${keyFile}')`],
    ['read_csv of the key file', () => `select * from read_csv('${keyFile}')`],
    ['INSTALL an extension', () => 'install httpfs'],
    ['LOAD an extension', () => 'load httpfs'],
    ['SET the lock off', () => 'set enable_external_access = true'],
    ['EXPORT DATABASE', () => `export database '${join(dir, 'export')}'`],
    ['write into the warehouse', () => 'delete from raw.chats'],
  ];

  it.each(hostile)('%s fails with exit 64 and changes no file', async (_what, sql) => {
    const before = { warehouse: digest(warehouse), other: digest(other) };
    const error = await runQuery(sql(), flags, new PassThrough()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VwhError);
    expect((error as VwhError).exitCode).toBe(64);
    expect((error as VwhError).message).toMatch(/vwh query only reads the warehouse/);
    expect((error as VwhError).message).not.toContain('0123456789abcdef');
    expect(digest(warehouse)).toBe(before.warehouse);
    expect(digest(other)).toBe(before.other);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    expect(existsSync(join(dir, 'export'))).toBe(false);
  });

  it('ATTACH then DELETE in one text empties nothing', async () => {
    await runQuery(`attach '${other}' as o (read_write); delete from o.raw.chats`, flags, new PassThrough()).catch(
      () => {},
    );
    expect(await rows(other)).toBe(5);
    expect(await rows(warehouse)).toBe(7);
  });
});
