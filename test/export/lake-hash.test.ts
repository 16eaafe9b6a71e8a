/**
 * The lake's content hash (taken over the warehouse's values, before the casts, grouped by the raw partition keys)
 * and the cast of timestamps to TIMESTAMPTZ without ICU: on a crafted warehouse of a few rows, each change a partition
 * can see rewrites exactly that partition, and the cast's values equal DuckDB's CAST.
 */
import { copyFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportParquetLake } from '../../src/export/index.js';
import { portableColumn } from '../../src/export/portable-types.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { readWithDuckDB, runOn } from './support.js';

const dir = tempDir('vwh-export-hash-').dir;
const db = join(dir, 'w.duckdb');

beforeAll(async () => {
  // facts in two projects x two months (one from raw.projects' team), a team-only table, a table with neither
  await runOn(
    db,
    `
      create schema marts; create schema raw;
      create table raw.projects as select * from (values ('team-a', 'p1'), ('team-a', 'p2')) v(team_id, id);
      create table marts.facts as
        select 'team-a' as team_id, 'p' || (i % 2 + 1) as project_id, date '2026-01-28' + (i // 2)::int as date,
               i as n, timestamp '2026-01-02 03:04:05.123456' + to_microseconds(i) as ts, [i, i + 1] as xs
          from range(12) r(i);
      create table marts.no_team as select project_id, date, n from marts.facts;
      create table marts.dim as select 'team-a' as team_id, 'x' || i as k, i as v from range(3) r(i);
      create table marts.free as select i as v from range(3) r(i);`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mtimes(root: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    if (e.isFile() && e.name.endsWith('.parquet')) out[relative(root, path)] = statSync(path).mtimeMs;
  }
  return out;
}

async function changed(name: string, sql: string): Promise<string> {
  const path = join(dir, name);
  copyFileSync(db, path);
  await runOn(path, sql);
  return path;
}

describe('lake content hash', () => {
  it('rewrites exactly the partition a duplicated row, a microsecond or a list element changed, and nothing else', async () => {
    const lake = join(dir, 'lake');
    const first = await exportParquetLake({ db, outDir: lake });
    expect(first.files).toBe(2 * 2 + 1 + 1); // facts and no_team: 2 months each; dim; free
    const before = mtimes(lake);
    expect((await exportParquetLake({ db, outDir: lake })).files).toBe(0);
    expect(mtimes(lake)).toEqual(before);

    const cases: [string, string, string][] = [
      // a duplicated row (cancels in the xor of the row hashes, not in their sum or the count)
      [
        'dup.duckdb',
        `insert into marts.facts select * from marts.facts where project_id = 'p1' and date = date '2026-01-28'`,
        'marts/facts/team_id=team-a/month=2026-01/part-0.parquet',
      ],
      // a value in a table whose team comes from raw.projects
      [
        'no-team.duckdb',
        `update marts.no_team set n = n + 1 where project_id = 'p2' and date = date '2026-02-02'`,
        'marts/no_team/team_id=team-a/month=2026-02/part-0.parquet',
      ],
      // one microsecond of a timestamp (written cast to TIMESTAMPTZ)
      [
        'ts.duckdb',
        `update marts.facts set ts = ts + interval 1 microsecond where project_id = 'p2' and date = date '2026-02-01'`,
        'marts/facts/team_id=team-a/month=2026-02/part-0.parquet',
      ],
      [
        'list.duckdb',
        `update marts.facts set xs = [n, n + 2] where n = 0`,
        'marts/facts/team_id=team-a/month=2026-01/part-0.parquet',
      ],
      ['dim.duckdb', `update marts.dim set v = 9 where k = 'x1'`, 'marts/dim/team_id=team-a/part-0.parquet'],
      ['free.duckdb', `update marts.free set v = 9 where v = 1`, 'marts/free/part-0.parquet'],
    ];
    for (const [name, sql, file] of cases) {
      const lakeCase = join(dir, `lake-${name}`);
      await exportParquetLake({ db, outDir: lakeCase });
      const was = mtimes(lakeCase);
      const summary = await exportParquetLake({ db: await changed(name, sql), outDir: lakeCase });
      const now = mtimes(lakeCase);
      expect({ name, rewritten: Object.keys(now).filter((f) => now[f] !== was[f]) }).toEqual({
        name,
        rewritten: [file],
      });
      expect(summary.files).toBe(1);
    }
  }, 60_000);

  it('hashes a null or infinite day into the same month folder as the write puts it in', async () => {
    // the content hashes group by a cheap month key (the month's first day), the write by strftime's text: both
    // must agree for every day, or the plan would name a folder the write did not make
    const odd = await changed(
      'odd-days.duckdb',
      `insert into marts.facts select 'team-a', 'p1', d, 100 + i, null, null
         from (values (0, NULL::DATE), (1, date 'infinity'), (2, date '2026-03-31'), (3, date '2026-03-01')) v(i, d)`,
    );
    const lake = join(dir, 'lake-odd-days');
    await exportParquetLake({ db: odd, outDir: lake, tables: ['facts'] });
    const months = readdirSync(join(lake, 'marts/facts/team_id=team-a')).sort();
    expect(months).toEqual([
      'month=2026-01',
      'month=2026-02',
      'month=2026-03',
      'month=__HIVE_DEFAULT_PARTITION__',
      'month=infinity',
    ]);
    const before = mtimes(lake);
    expect((await exportParquetLake({ db: odd, outDir: lake, tables: ['facts'] })).files).toBe(0);
    expect(mtimes(lake)).toEqual(before);
    const counts = await readWithDuckDB(
      `select count(*) filter (where month = 'infinity') as inf, count(*) filter (where month is null) as nul,
              count(*) filter (where month = '2026-03') as mar
         from read_parquet('${lake}/marts/facts/**/*.parquet', hive_partitioning = true)`,
    );
    expect(counts.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])))).toEqual([
      { inf: 1, nul: 1, mar: 2 },
    ]);
  });

  it('casts TIMESTAMP, _MS and _S to the same TIMESTAMPTZ as DuckDB CAST, infinities and nulls included', async () => {
    const w = await Database.open(':memory:');
    try {
      await w.session.run("SET TimeZone = 'UTC'");
      for (const type of ['TIMESTAMP', 'TIMESTAMP_MS', 'TIMESTAMP_S']) {
        const column = portableColumn({ name: 'ts', type }, 'v');
        expect(column.type).toBe('TIMESTAMP WITH TIME ZONE');
        expect(column.expr).toContain('make_timestamptz');
        const rows = await w.session.all<{ same: boolean; t: string }>(
          `select ${column.expr.replace(/ AS "ts"$/, '')} is not distinct from CAST(v.ts AS TIMESTAMPTZ) as same,
                  typeof(${column.expr.replace(/ AS "ts"$/, '')}) as t
             from (values ('1969-12-31 23:59:59.999999'), ('2026-06-01 12:34:56.789012'), ('0001-01-01 00:00:00'),
                          ('9999-12-31 23:59:59'), ('infinity'), ('-infinity'), (NULL)) x(s),
                  lateral (select CAST(x.s AS ${type}) as ts) v`,
        );
        expect(rows).toHaveLength(7);
        expect(rows.every((r) => r.same && r.t === 'TIMESTAMP WITH TIME ZONE')).toBe(true);
      }
    } finally {
      w.close();
    }
  });
});
