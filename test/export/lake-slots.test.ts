/**
 * A large table's months as slot files (docs/lake.md, "Partition layout"): each month partition of a table whose
 * months hold enough rows is written as one file per slot of its days (1-8, 9-16, 17-24, 25-31), so that a change
 * to some days rewrites their slot's file, not the month's. Read back by DuckDB (Hive partitions) and hyparquet.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportParquetLake } from '../../src/export/index.js';
import type { ManifestTable, ScopeManifest } from '../../src/export/lake/manifest.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { mtimes, readWithDuckDB, runOn } from './support.js';

const dir = tempDir('vwh-lake-slots-').dir;
const db = join(dir, 'warehouse.duckdb');

/** Three projects (two teams) × 40 keys a day from 2026-01-01 to 2026-04-20 (110 days): 13,200 rows, 3,300 a month. */
const WORLD = `
  create schema raw;
  create table raw.projects as select 'p' || p as id, 'team-' || ['a', 'b'][1 + p % 2] as team_id from range(3) t(p);
  create schema marts;
  create table marts.daily as
    select 'team-' || ['a', 'b'][1 + p % 2] as team_id, 'p' || p as project_id,
           DATE '2026-01-01' + d::int as date, k, (d * 7 + p * 3 + k) % 101 as v
      from range(110) a(d), range(3) b(p), range(40) c(k)
     order by date;
  create table marts.totals as select team_id, project_id, sum(v) as v from marts.daily group by all;
  checkpoint;`;

/** Slot files for marts.daily: any table past 1,000 rows a month. */
const SPLIT = 1_000;
/** Never split (a month stays one file unless the lake already holds the table as slot files). */
const WHOLE = 1e12;

async function exportLake(lake: string, slotMinMonthRows: number) {
  const before = mtimes(lake);
  const summary = await exportParquetLake({ db, outDir: lake, slotMinMonthRows });
  const after = mtimes(lake);
  const rewritten = Object.keys(after)
    .filter((f) => after[f] !== before[f])
    .sort();
  return { summary, rewritten, files: Object.keys(after).sort() };
}

function table(lake: string, name: string): ManifestTable {
  const manifest = JSON.parse(readFileSync(join(lake, '_manifest.json'), 'utf8')) as ScopeManifest;
  const found = manifest.tables[`marts.${name}`];
  if (!found) throw new Error(`marts.${name} is not in the manifest`);
  return found;
}

/** Rows of the lake's marts.daily not in the mart, and the other way round (multisets). */
async function differences(lake: string): Promise<{ extra: number; missing: number }> {
  const w = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    const lakeRows = `select team_id, project_id, date, k, v from read_parquet('${lake}/marts/daily/**/*.parquet', hive_partitioning = true, hive_types_autocast = false)`;
    const martRows = 'select team_id, project_id, date, k, v from marts.daily';
    return {
      extra: Number(await w.session.scalar(`select count(*) from (${lakeRows} except all ${martRows})`)),
      missing: Number(await w.session.scalar(`select count(*) from (${martRows} except all ${lakeRows})`)),
    };
  } finally {
    w.close();
  }
}

beforeAll(async () => {
  await runOn(db, WORLD);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a large table whose months are slot files', () => {
  const lake = join(dir, 'lake');

  it('is written as a file per slot of each month, read back whole by DuckDB and hyparquet', async () => {
    const { summary, files } = await exportLake(lake, SPLIT);
    const daily = table(lake, 'daily');
    expect(daily.partition_by).toEqual(['team_id', 'month']);
    // January: days 1-8, 9-16, 17-24, 25-31; April (1-20): three slots
    expect(files.filter((f) => f.startsWith('marts/daily/team_id=team-a/month=2026-01/'))).toEqual(
      [0, 1, 2, 3].map((s) => `marts/daily/team_id=team-a/month=2026-01/part-${s}.parquet`),
    );
    expect(files.filter((f) => f.startsWith('marts/daily/team_id=team-b/month=2026-04/'))).toEqual(
      [0, 1, 2].map((s) => `marts/daily/team_id=team-b/month=2026-04/part-${s}.parquet`),
    );
    expect(daily.partitions).toHaveLength(2 * (4 + 4 + 4 + 3));
    // the table without dates stays one file a team
    expect(table(lake, 'totals').partitions.every((p) => p.slot === undefined && p.files.length === 1)).toBe(true);
    expect(await differences(lake)).toEqual({ extra: 0, missing: 0 });
    // each slot's file holds its days only, and the manifest's rows: hyparquet counts them
    for (const part of daily.partitions) {
      expect(part.files).toEqual([`part-${part.slot}.parquet`]);
      const buffer = readFileSync(join(lake, daily.path, part.path, part.files[0] as string));
      const meta = parquetMetadata(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
      expect(Number(meta.num_rows)).toBe(part.rows);
      expect(meta.schema.slice(1).map((s) => s.name)).toEqual(['project_id', 'date', 'k', 'v']);
    }
    const days = await readWithDuckDB<{ f: string; lo: number; hi: number }>(
      `select regexp_extract(filename, 'part-\\d') as f, min(day(date))::int as lo, max(day(date))::int as hi
         from read_parquet('${lake}/marts/daily/team_id=team-a/month=2026-01/*.parquet', filename = true) group by f order by f`,
    );
    expect(days).toEqual([
      { f: 'part-0', lo: 1, hi: 8 },
      { f: 'part-1', lo: 9, hi: 16 },
      { f: 'part-2', lo: 17, hi: 24 },
      { f: 'part-3', lo: 25, hi: 31 },
    ]);
    expect(summary.rows).toBe(13_200 + 3);
  });

  it('rewrites nothing when nothing changed', async () => {
    const { summary, rewritten } = await exportLake(lake, SPLIT);
    expect(rewritten).toEqual([]);
    expect(summary.files).toBe(0);
  });

  it('rewrites the file of the changed days only: an update on one day, a new day at the month end', async () => {
    await runOn(
      db,
      `update marts.daily set v = v + 1 where date = DATE '2026-03-20' and team_id = 'team-a'; checkpoint;`,
    );
    const one = await exportLake(lake, SPLIT);
    expect(one.rewritten).toEqual(['marts/daily/team_id=team-a/month=2026-03/part-2.parquet']);
    expect(one.summary.rows).toBe(
      table(lake, 'daily').partitions.find((p) => p.path === 'team_id=team-a/month=2026-03' && p.slot === 2)?.rows,
    );
    expect(await differences(lake)).toEqual({ extra: 0, missing: 0 });
    await runOn(
      db,
      `insert into marts.daily select team_id, project_id, DATE '2026-04-21', k, v from marts.daily where date = DATE '2026-04-20';
       checkpoint;`,
    );
    const night = await exportLake(lake, SPLIT);
    expect(night.rewritten).toEqual([
      'marts/daily/team_id=team-a/month=2026-04/part-2.parquet',
      'marts/daily/team_id=team-b/month=2026-04/part-2.parquet',
    ]);
    expect(await differences(lake)).toEqual({ extra: 0, missing: 0 });
    // a DELETE by hand still in the WAL (the storage proves nothing: every row is hashed): the file of its days
    await runOn(
      db,
      `PRAGMA disable_checkpoint_on_shutdown;
       delete from marts.daily where date = DATE '2026-01-30' and team_id = 'team-b';`,
    );
    expect(statSync(`${db}.wal`).size).toBeGreaterThan(0);
    const wal = await exportLake(lake, SPLIT);
    expect(wal.rewritten).toEqual(['marts/daily/team_id=team-b/month=2026-01/part-3.parquet']);
    expect(await differences(lake)).toEqual({ extra: 0, missing: 0 });
  });

  it('a lake of one file a month becomes slot files once, with no row twice, and stays so', async () => {
    const whole = join(dir, 'whole');
    const first = await exportLake(whole, WHOLE);
    expect(first.files.filter((f) => f.startsWith('marts/daily/team_id=team-a/month=2026-01/'))).toEqual([
      'marts/daily/team_id=team-a/month=2026-01/part-0.parquet',
    ]);
    expect(table(whole, 'daily').partitions.every((p) => p.slot === undefined)).toBe(true);
    const split = await exportLake(whole, SPLIT);
    // every month of the table rewritten (the whole-month part-0 replaced by slot 0's), nothing else left
    expect(split.files.filter((f) => f.startsWith('marts/daily/'))).toEqual(
      table(whole, 'daily')
        .partitions.map((p) => `marts/daily/${p.path}/part-${p.slot}.parquet`)
        .sort(),
    );
    expect(await differences(whole)).toEqual({ extra: 0, missing: 0 });
    expect(split.rewritten.filter((f) => f.startsWith('marts/totals/'))).toEqual([]);
    // the lake holds the table as slot files: a later export keeps them whatever the table's size
    const again = await exportLake(whole, WHOLE);
    expect(again.rewritten).toEqual([]);
    expect(table(whole, 'daily').partitions.every((p) => p.slot !== undefined)).toBe(true);
  });
});
