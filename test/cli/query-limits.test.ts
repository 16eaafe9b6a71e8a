/**
 * `vwh query` on a runaway query and on a damaged file (issue 24, item 5): a 10^12-row cross join is interrupted
 * after --timeout seconds with exit 1 naming --timeout, instead of running until killed; a block whose checksum does
 * not match is a data error (exit 1) that says the file is damaged and how to restore it, not `[USAGE]` exit 64,
 * and a file damaged where DuckDB opens it is not reported as held by another process (exit 4).
 */
import { copyFileSync, mkdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { writeReport } from '../../src/export/index.js';
import { runQuery } from '../../src/ops/query.js';
import { tempDir } from '../fixtures.js';
import { damageMiddleBlock, writeSmallWarehouse } from '../warehouse/damaged-file.js';

const dir = tempDir('vwh-query-limits-').dir;
const good = join(dir, 'good.duckdb');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => writeSmallWarehouse(good));

async function query(file: string, sql: string, timeout?: number): Promise<VwhError> {
  const out = new PassThrough();
  out.resume();
  const error = await runQuery(sql, { db: file, format: 'csv', maxRows: 10, timeout }, out).catch((e) => e);
  expect(error).toBeInstanceOf(VwhError);
  return error as VwhError;
}

describe('vwh query --timeout', () => {
  it('interrupts a runaway cross join: exit 1 naming --timeout and what to do', async () => {
    const error = await query(good, 'select count(*) from range(1000000) a, range(1000000) b', 1);
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain('ran longer than --timeout 1 s and was stopped');
    expect(error.message).toContain('--timeout <seconds>, 0 for no limit');
  }, 30_000);

  it('leaves a query that finishes in time alone', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => {
      text += String(c);
    });
    await runQuery('select count(*) as n from raw.chats', { db: good, format: 'csv', maxRows: 10, timeout: 5 }, out);
    expect(text).toBe('n\n400000\n');
  });
});

describe('a damaged file', () => {
  it('a block with a bad checksum is a data error (exit 1) saying the file is damaged and how to restore it', async () => {
    const bad = join(dir, 'bad-block.duckdb');
    copyFileSync(good, bad);
    // a block in the middle of the file: the table's data, not the header or the catalog DuckDB reads on open
    damageMiddleBlock(bad);
    const error = await query(bad, 'select sum(hash(text)) from raw.chats');
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(new RegExp(`^${bad} is damaged \\(Corrupt database file`));
    expect(error.message).toContain('If it is the published copy, the next vwh run rewrites it');
    expect(error.message).toContain('If it is the warehouse, stop vwh, copy the published copy (or a backup) over it');
  });

  it('a report reading the damaged block says the file is damaged, not to build the models', async () => {
    const bad = join(dir, 'bad-report.duckdb');
    copyFileSync(good, bad);
    damageMiddleBlock(bad);
    const reports = join(dir, 'reports');
    mkdirSync(reports, { recursive: true });
    writeFileSync(
      join(reports, 'hashes.sql'),
      '/* @report\ntitle: Hashes\ndescription: every text\ncolumns: {n: a hash}\n*/\nselect sum(hash(text)) as n from raw.chats',
    );
    const out = join(dir, 'hashes.json');
    const error = await writeReport({ db: bad, name: 'hashes', format: 'json', out, reportsDir: reports }).catch(
      (e) => e,
    );
    expect((error as VwhError).exitCode).toBe(1);
    expect((error as VwhError).message).toContain(`${bad} is damaged`);
    expect((error as VwhError).message).not.toContain('vwh models build');
  });

  it('a file cut short is damaged, not held by another process', async () => {
    const cut = join(dir, 'cut.duckdb');
    copyFileSync(good, cut);
    truncateSync(cut, Math.floor(statSync(cut).size / 3));
    const error = await query(cut, 'select count(*) from raw.chats');
    expect(error.code).not.toBe('DB_LOCKED');
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(`${cut} is damaged`);
  });
});
