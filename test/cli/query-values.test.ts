/**
 * `vwh query` prints values as DuckDB's own CLI does: dates as dates and timestamps as DuckDB writes them (not
 * JavaScript's `2026-11-24T00:00:00.000Z`), NULL visible in the table (empty in CSV, null in JSON), doubles rounded
 * in the table only and exact in CSV and JSON, integers beyond 2^53 exact, and `(1 row)`. The built CLI, a real file.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { vwh } from './support.js';

const dir = tempDir('vwh-query-values-').dir;
const db = join(dir, 'w.duckdb');
const SQL = `select day, ts, x, share, big, note from t order by day`;

beforeAll(async () => {
  const database = await Database.open(db);
  try {
    await database.session.run(`create table t as
      select date '2026-11-24' as day, timestamp '2026-11-24 13:05:00' as ts, 0.999999999999999::double as x,
             12.30::decimal(10, 2) as share, 9007199254740993::bigint as big, null::varchar as note
      union all
      select date '2026-11-25', null, 2.5::double, null, -1, 'a, "b"'`);
  } finally {
    database.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('vwh query values', () => {
  it('table: dates as dates, NULL shown, doubles rounded for the eye, numbers right-aligned, (2 rows)', async () => {
    const r = await vwh(['query', '--db', db, SQL]);
    expect(r.stderr + r.code).toBe(`vwh: reading ${db}, no vwh run recorded in it\n0`);
    expect(r.stdout.split('\n')).toEqual([
      'day         ts                     x  share               big  note',
      '----------  -------------------  ---  -----  ----------------  ------',
      '2026-11-24  2026-11-24 13:05:00  1.0  12.30  9007199254740993  NULL',
      '2026-11-25  NULL                 2.5   NULL                -1  a, "b"',
      '(2 rows)',
      '',
    ]);
  });

  it('CSV: every value exact, NULL empty', async () => {
    const r = await vwh(['query', '--db', db, '--format', 'csv', SQL]);
    expect(r.stderr + r.code).toBe(`vwh: reading ${db}, no vwh run recorded in it\n0`);
    expect(r.stdout).toBe(
      'day,ts,x,share,big,note\n' +
        '2026-11-24,2026-11-24 13:05:00,0.999999999999999,12.30,9007199254740993,\n' +
        '2026-11-25,,2.5,,-1,"a, ""b"""\n',
    );
  });

  it('JSON lines: dates as text, NULL null, numbers exact JSON numbers', async () => {
    const r = await vwh(['query', '--db', db, '--format', 'json', SQL]);
    expect(r.stderr + r.code).toBe(`vwh: reading ${db}, no vwh run recorded in it\n0`);
    expect(r.stdout.split('\n')[0]).toBe(
      '{"day":"2026-11-24","ts":"2026-11-24 13:05:00","x":0.999999999999999,"share":12.30,"big":9007199254740993,"note":null}',
    );
    expect(JSON.parse(r.stdout.split('\n')[1] ?? '')).toEqual({
      day: '2026-11-25',
      ts: null,
      x: 2.5,
      share: null,
      big: -1,
      note: 'a, "b"',
    });
  });

  it('one row is (1 row), and stdout holds only the data (the source line is on stderr)', async () => {
    const r = await vwh(['query', '--db', db, 'select count(*) as n from t where big < 0']);
    expect(r.stdout).toBe('n\n-\n1\n(1 row)\n');
    expect(r.stderr).toBe(`vwh: reading ${db}, no vwh run recorded in it\n`);
  });
});
