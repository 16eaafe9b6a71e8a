/**
 * The type mapping of the lake, on a crafted warehouse holding every awkward DuckDB type: what an independent
 * reader (hyparquet, not DuckDB) sees in the files, and what DuckDB reads back over the Hive layout.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata, type SchemaElement } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { exportParquetLake } from '../../src/export/index.js';
import { tempDir } from '../fixtures.js';
import { readWithDuckDB, runOn } from './support.js';

const dir = tempDir('vwh-export-types-').dir;
const db = join(dir, 'w.duckdb');

beforeAll(async () => {
  await runOn(
    db,
    `
      create schema marts; create schema raw;
      create table raw.projects (team_id varchar, id varchar);
      insert into raw.projects values ('team-a', 'p1'), ('team-a', 'p2'), ('team-a', 'p1'), ('team-z', 'p9');
      create table marts.awkward as
        select 'team-a' as team_id, 'p' || (i % 2 + 1) as project_id,
               date '2026-01-30' + i::int as date,
               ('00000000-0000-0000-0000-00000000000' || i)::uuid as id,
               (i::hugeint * 1000000000000000000000) as big,
               i::ubigint as ubig, i::utinyint as utiny,
               make_timestamp_ns(1767323045123456789 + i * 86400000000000) as ts_ns,
               timestamp '2026-01-02 03:04:05' as ts,
               time '12:34:56' as t,
               to_hours(i) as iv,
               '{"a": 1}'::json as js,
               [i, i + 1] as ints,
               {'k': i, 'v': 'x'} as st,
               map {'a': i} as mp,
               [[i]] as nested,
               (i / 3)::decimal(18, 3) as dec,
               'enum'::enum('enum', 'other') as en
          from range(4) r(i);
      create table marts.dim as select * from (values ('p1', 'Acme'), ('p9', 'Zed')) v(project_id, name);`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function files(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.parquet'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

function leafTypes(schema: SchemaElement[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const el of schema.slice(1)) {
    if (el.num_children) {
      out[el.name] = el.logical_type?.type ?? el.converted_type ?? 'GROUP';
      continue;
    }
    if (out[el.name] !== undefined || ['element', 'list', 'item', 'k', 'v'].includes(el.name)) continue;
    const lt = el.logical_type;
    out[el.name] =
      lt?.type === 'TIMESTAMP'
        ? `TIMESTAMP(${lt.unit},utc=${lt.isAdjustedToUTC})`
        : lt?.type === 'DECIMAL'
          ? `DECIMAL(${lt.precision},${lt.scale})`
          : lt?.type === 'INTEGER'
            ? `INT${lt.bitWidth}`
            : (lt?.type ?? el.converted_type ?? el.type ?? '?');
  }
  return out;
}

describe('parquet types every reader understands', () => {
  it('an independent reader sees portable logical types, and partition columns only in the path', async () => {
    const out = join(dir, 'lake');
    await exportParquetLake({ db, outDir: out });
    const awkward = files(join(out, 'marts', 'awkward'));
    // 4 days from 2026-01-30 span two months: team/month partitions (both projects in each)
    expect(
      awkward.map((f) =>
        f
          .slice(out.length + 1)
          .split('/')
          .slice(2, 4)
          .join('/'),
      ),
    ).toEqual(['team_id=team-a/month=2026-01', 'team_id=team-a/month=2026-02']);
    let rows = 0;
    for (const file of awkward) {
      const buffer = readFileSync(file);
      const meta = parquetMetadata(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
      rows += Number(meta.num_rows);
      expect(meta.row_groups.every((g) => g.columns.every((c) => c.meta_data?.codec === 'ZSTD'))).toBe(true);
      const types = leafTypes(meta.schema);
      expect(Object.keys(types)).not.toContain('team_id');
      expect(Object.keys(types)).not.toContain('month');
      // strings carry the UTF8 annotation, integers their width: what Spark, pyarrow and BigQuery key on
      expect(types).toMatchObject({
        // a fact's project is a column of its month's file (the lake is partitioned team_id/month)
        project_id: 'UTF8',
        date: 'DATE',
        id: 'UTF8',
        big: 'DECIMAL(38,0)',
        ubig: 'DECIMAL(20,0)',
        utiny: 'INT_16',
        ts_ns: 'TIMESTAMP(MICROS,utc=true)',
        ts: 'TIMESTAMP(MICROS,utc=true)',
        t: 'UTF8',
        iv: 'INT_64',
        js: 'UTF8',
        ints: 'LIST',
        st: 'UTF8',
        mp: 'UTF8',
        nested: 'UTF8',
        dec: 'DECIMAL(18,3)',
        en: 'UTF8',
      });
    }
    expect(rows).toBe(4);
    // dimension tables without a team column take their team from the project, one file per team
    // (a project listed twice in raw.projects, another team's project beside it: each row once, in its team)
    expect(files(join(out, 'marts', 'dim')).map((f) => f.slice(out.length + 1))).toEqual([
      'marts/dim/team_id=team-a/part-0.parquet',
      'marts/dim/team_id=team-z/part-0.parquet',
    ]);
    const dim = await readWithDuckDB<{ team_id: string; name: string }>(
      `select team_id, name from read_parquet('${out}/marts/dim/**/*.parquet', hive_partitioning = true) order by 1`,
    );
    expect(dim).toEqual([
      { team_id: 'team-a', name: 'Acme' },
      { team_id: 'team-z', name: 'Zed' },
    ]);
  });

  it('DuckDB over the Hive layout reads back the values, nanoseconds cut to microseconds in UTC', async () => {
    const out = join(dir, 'lake');
    const rows = await readWithDuckDB<Record<string, unknown>>(
      `select team_id, project_id, month, id, big::varchar as big, strftime(ts_ns, '%Y-%m-%d %H:%M:%S.%f') as ts_ns,
              t, iv, js, st, ints
         from read_parquet('${out}/marts/awkward/**/*.parquet', hive_partitioning = true) order by date`,
    );
    expect(rows[1]).toEqual({
      team_id: 'team-a',
      project_id: 'p2',
      month: '2026-01',
      id: '00000000-0000-0000-0000-000000000001',
      big: '1000000000000000000000',
      ts_ns: '2026-01-03 03:04:05.123456',
      t: '12:34:56',
      iv: 3_600_000_000,
      js: '{"a": 1}',
      st: '{"k":1,"v":"x"}',
      ints: [1n, 2n],
    });
  });

  it('refuses a partition value that would leave the lake, and unknown tables, with USAGE', async () => {
    const evil = join(dir, 'evil.duckdb');
    await runOn(evil, `create schema marts; create table marts.f as select '../../etc' as team_id, 'p' as project_id`);
    const out = join(dir, 'evil-lake');
    await expect(exportParquetLake({ db: evil, outDir: out })).rejects.toThrow(/cannot be used in a file name/);
    expect(files(out)).toEqual([]);
    const error = await exportParquetLake({ db, outDir: out, tables: ['nope'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VwhError);
    expect((error as VwhError).exitCode).toBe(64);
    expect((error as VwhError).message).toMatch(/Unknown table "nope".*marts\.awkward/);
  });
});
