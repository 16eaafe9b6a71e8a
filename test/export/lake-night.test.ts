/**
 * The lake's export of a night reads only what the night changed: a models build that rebuilt the last days of a
 * time-range mart has the export hash (and rewrite) only the months whose row groups changed, the other months'
 * hashes kept from the manifest; what the runner did not write (an UPDATE or DELETE by hand, checkpointed or still
 * in the WAL), a --full-refresh, a schema change and a lake of the previous version are still found by reading the
 * rows.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { exportParquetLake } from '../../src/export/index.js';
import type { ScopeManifest } from '../../src/export/lake/manifest.js';
import { loadProject } from '../../src/models/project.js';
import { runProject } from '../../src/models/runner.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { mtimes, readWithDuckDB, runOn } from './support.js';

const DAY = 86_400_000;
const dir = tempDir('vwh-lake-night-').dir;
const modelsDir = join(dir, 'models');
const db = join(dir, 'warehouse.duckdb');
const lake = join(dir, 'lake');
const clock = new ManualClock(Date.UTC(2026, 3, 21, 3));

/**
 * Two teams × 5 projects × 300 keys a day from 2026-01-01 to 2026-04-20: 330,000 rows, three row groups. The mart is
 * built a month a batch (`batch_days: 31`), so that each row group holds about a month's days (a year in one batch
 * puts every day in every row group, and a night's delete of its last days then changes them all).
 */
const RAW = `
  create schema raw;
  create table raw.facts as
    select 'team-' || ['a', 'b'][1 + p % 2] as team_id, 'p' || p as project_id,
           DATE '2026-01-01' + d::int as date, k, (d * 7 + p * 3 + k) % 101 as v
      from range(110) a(d), range(5) b(p), range(300) c(k);`;

const DAILY = (value = 'sum(v)') => `/* @model
kind: incremental_by_time_range
time_column: date
lookback: 2
batch_days: 31
*/
select team_id, project_id, date, k, ${value} as v, count(*) as n
from raw.facts
where date between @start_date and @end_date
group by all`;

const PROJECTS = `/* @model
kind: table
*/
select distinct team_id, project_id from raw.facts`;

function writeModel(name: string, text: string): void {
  writeFileSync(join(modelsDir, 'marts', `${name}.sql`), text);
}

async function build(fullRefresh = false): Promise<void> {
  const warehouse = await Database.open(db);
  try {
    const run = await runProject(warehouse, await loadProject(modelsDir), {
      command: 'build',
      clock,
      logger: silentLogger,
      fullRefresh,
    });
    const failed = run.results.filter((r) => r.status !== 'success');
    expect(failed.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
  } finally {
    warehouse.close();
  }
}

interface Staged {
  table: string;
  rewritten: number;
  hashed: string;
}

/** Exports the lake; returns what each table read (`hashed`) and rewrote, and the files rewritten. */
async function exportLake(from = db, into = lake): Promise<{ staged: Map<string, Staged>; rewritten: string[] }> {
  const lines: string[] = [];
  const log = createLogger({
    format: 'json',
    level: 'info',
    stream: { write: (s: string) => lines.push(s) > 0 } as unknown as NodeJS.WritableStream,
  });
  const before = mtimes(into);
  await exportParquetLake({ db: from, outDir: into, log });
  const staged = new Map<string, Staged>();
  for (const line of lines) {
    const entry = JSON.parse(line) as Staged & { msg: string };
    if (entry.msg === 'export table staged') staged.set(entry.table, entry);
  }
  const after = mtimes(into);
  const rewritten = Object.keys(after)
    .filter((f) => after[f] !== before[f])
    .sort();
  return { staged, rewritten };
}

/** Rows of the lake's table not in the mart, and the other way round (multisets), for every mart. */
async function differences(): Promise<Record<string, { extra: number; missing: number }>> {
  const w = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    const out: Record<string, { extra: number; missing: number }> = {};
    for (const table of ['daily', 'projects']) {
      const cols = (
        await w.session.all<{ c: string }>(
          `select column_name as c from duckdb_columns() where schema_name = 'marts' and table_name = $1 order by column_index`,
          [table],
        )
      ).map((r) => `"${r.c}"`);
      const lakeRows = `select ${cols.join(', ')} from read_parquet('${lake}/marts/${table}/**/*.parquet', hive_partitioning = true, hive_types_autocast = false)`;
      const martRows = `select ${cols.join(', ')} from marts.${table}`;
      out[table] = {
        extra: Number(await w.session.scalar(`select count(*) from (${lakeRows} except all ${martRows})`)),
        missing: Number(await w.session.scalar(`select count(*) from (${martRows} except all ${lakeRows})`)),
      };
    }
    return out;
  } finally {
    w.close();
  }
}

interface RowGroup {
  rows: number;
  min: string;
  max: string;
  blocks: string;
}

/** A table's row groups in order: their rows, the dates their zonemap bounds, their blocks. */
async function rowGroups(from: string, table = 'marts.moved'): Promise<RowGroup[]> {
  const w = await Database.open(from, { access_mode: 'READ_ONLY' });
  try {
    const rows = await w.session.all<{ rows: number | bigint; stats: string; blocks: string }>(
      `select sum(count) filter (where column_name = 'date' and segment_type <> 'VALIDITY')::BIGINT as rows,
              max(stats) filter (where column_name = 'date' and segment_type <> 'VALIDITY') as stats,
              string_agg(block_id || ':' || block_offset, ',' order by column_id, column_path, segment_id) as blocks
         from pragma_storage_info('${table}') group by row_group_id order by row_group_id`,
    );
    return rows.map((r) => {
      const [, min = '', max = ''] = /Min: ([\d-]+), Max: ([\d-]+)/.exec(r.stats) ?? [];
      return { rows: Number(r.rows), min, max, blocks: r.blocks };
    });
  } finally {
    w.close();
  }
}

const SAME = { daily: { extra: 0, missing: 0 }, projects: { extra: 0, missing: 0 } };

/** The months a `hashed` field of the log covers (its runs, comma-separated; `all` and `none` as themselves). */
function months(hashed: string | undefined): string[] {
  if (hashed === undefined || hashed === 'all' || hashed === 'none') return [hashed ?? 'absent'];
  const out: string[] = [];
  for (const run of hashed.split(',')) {
    const [first, last = first] = run.split('..') as [string, string?];
    for (const m of ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05']) if (m >= first && m <= last) out.push(m);
  }
  return out;
}

beforeAll(async () => {
  await runOn(db, RAW);
  mkdirSync(join(modelsDir, 'marts'), { recursive: true });
  writeModel('daily', DAILY());
  writeModel('projects', PROJECTS);
  await build();
  await exportLake();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the lake export of a night', () => {
  it('with nothing new reads no row of any table and rewrites nothing', async () => {
    const { staged, rewritten } = await exportLake();
    expect(rewritten).toEqual([]);
    expect(staged.get('marts.daily')?.hashed).toBe('none');
    expect(staged.get('marts.projects')?.hashed).toBe('none');
  });

  it('after a night reads the months of the rebuilt days only and rewrites exactly the changed partitions', async () => {
    // the night: a new day, and late rows of the last day (its values change)
    await runOn(
      db,
      `insert into raw.facts select 'team-' || ['a', 'b'][1 + p % 2], 'p' || p, DATE '2026-04-21', k, k % 13
         from range(5) b(p), range(300) c(k);
       update raw.facts set v = v + 1 where date = DATE '2026-04-20' and k < 10;`,
    );
    await clock.advance(DAY);
    await build();
    const { staged, rewritten } = await exportLake();
    expect(rewritten).toEqual([
      'marts/daily/team_id=team-a/month=2026-04/part-0.parquet',
      'marts/daily/team_id=team-b/month=2026-04/part-0.parquet',
    ]);
    // January and February sit in row groups the night did not touch: their hashes are the manifest's
    const read = months(staged.get('marts.daily')?.hashed);
    expect(read).toContain('2026-04');
    expect(read).not.toContain('all');
    expect(read).not.toContain('2026-01');
    expect(read).not.toContain('2026-02');
    // the table model is rebuilt every night (new storage): read, found unchanged, not rewritten
    expect(staged.get('marts.projects')?.hashed).toBe('all');
    expect(await differences()).toEqual(SAME);
    expect((await exportLake()).staged.get('marts.daily')?.hashed).toBe('none');
  });

  it('finds an UPDATE and a DELETE by hand in months the runner did not touch, checkpointed or in the WAL', async () => {
    await runOn(db, `update marts.daily set v = v + 1 where date = DATE '2026-01-05' and project_id = 'p1' and k = 7`);
    let night = await exportLake();
    expect(night.rewritten).toEqual(['marts/daily/team_id=team-b/month=2026-01/part-0.parquet']);
    expect(await differences()).toEqual(SAME);

    await runOn(db, `delete from marts.daily where date = DATE '2026-02-11' and project_id = 'p2' and k = 3`);
    night = await exportLake();
    expect(night.rewritten).toEqual(['marts/daily/team_id=team-a/month=2026-02/part-0.parquet']);
    expect(await differences()).toEqual(SAME);

    // not checkpointed: the change is in the WAL, which the export's read-only open replays
    await runOn(
      db,
      `PRAGMA disable_checkpoint_on_shutdown;
       update marts.daily set v = v + 1 where date = DATE '2026-03-03' and project_id = 'p0' and k = 1;`,
    );
    night = await exportLake();
    expect(night.staged.get('marts.daily')?.hashed).toBe('all');
    expect(night.rewritten).toEqual(['marts/daily/team_id=team-a/month=2026-03/part-0.parquet']);
    expect(await differences()).toEqual(SAME);
  });

  it('after a --full-refresh that changes every row, rewrites every partition, equal to the marts', async () => {
    writeModel('daily', DAILY('sum(v) * 2'));
    await build(true);
    const { staged, rewritten } = await exportLake();
    expect(months(staged.get('marts.daily')?.hashed)).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    expect(rewritten.filter((f) => f.startsWith('marts/daily/'))).toHaveLength(2 * 4);
    expect(await differences()).toEqual(SAME);
    expect((await exportLake()).staged.get('marts.daily')?.hashed).toBe('none');
  });

  it('reads every row of a lake the previous version wrote (no storage keys) once, rewriting nothing', async () => {
    const scopes = join(lake, '_manifests');
    for (const file of readdirSync(scopes)) {
      const manifest = JSON.parse(readFileSync(join(scopes, file), 'utf8')) as ScopeManifest;
      for (const table of Object.values(manifest.tables)) {
        for (const part of table.partitions) {
          delete part.storage_key;
          delete part.storage_teams;
        }
      }
      writeFileSync(join(scopes, file), JSON.stringify(manifest));
    }
    const first = await exportLake();
    expect(first.rewritten).toEqual([]);
    expect(months(first.staged.get('marts.daily')?.hashed)).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    const second = await exportLake();
    expect(second.staged.get('marts.daily')?.hashed).toBe('none');
    expect(await differences()).toEqual(SAME);
  });

  it('reads every month again when the schema changes (a column added by hand), rewriting every partition', async () => {
    await runOn(db, 'alter table marts.daily add column note INTEGER default 1');
    const { staged, rewritten } = await exportLake();
    expect(months(staged.get('marts.daily')?.hashed)).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
    expect(rewritten.filter((f) => f.startsWith('marts/daily/'))).toHaveLength(2 * 4);
    expect(await differences()).toEqual(SAME);
  });

  it('rewrites a partition whose file is gone from the lake without reading its rows again', async () => {
    const gone = 'marts/daily/team_id=team-b/month=2026-02/part-0.parquet';
    rmSync(join(lake, gone));
    const { staged, rewritten } = await exportLake();
    expect(staged.get('marts.daily')?.hashed).toBe('none');
    expect(rewritten).toEqual([gone]);
    expect(await differences()).toEqual(SAME);
  });

  it('keeps the prints of row groups whose row ids a checkpoint moved (a row group before them dropped)', async () => {
    // a month a row group (122,880 rows each, inserted in order), then January deleted by hand: the checkpoint
    // drops its row group, and the row ids of February's and March's move down by 122,880, their blocks as they were
    const own = join(dir, 'moved.duckdb');
    const ownLake = join(dir, 'moved-lake');
    const month = (first: string, days: number) =>
      `insert into marts.moved select 'team-a', 'p1', DATE '${first}' + (i % ${days})::int, i, i * 7 % 101
         from range(122880) t(i);`;
    await runOn(
      own,
      `create schema marts; create table marts.moved (team_id VARCHAR, project_id VARCHAR, date DATE, k BIGINT, v BIGINT);
       ${month('2026-01-01', 31)} ${month('2026-02-01', 28)} ${month('2026-03-01', 31)}`,
    );
    expect((await exportLake(own, ownLake)).staged.get('marts.moved')?.hashed).toBe('2026-01..2026-03');
    expect((await rowGroups(own)).map((g) => [g.rows, g.min.slice(0, 7), g.max.slice(0, 7)])).toEqual([
      [122880, '2026-01', '2026-01'],
      [122880, '2026-02', '2026-02'],
      [122880, '2026-03', '2026-03'],
    ]);

    // the first month and the last changed: those two are read, not February between them
    await runOn(
      own,
      `update marts.moved set v = v + 1 where k = 5 and (date < DATE '2026-02-01' or date >= DATE '2026-03-01')`,
    );
    const ends = await exportLake(own, ownLake);
    expect(ends.staged.get('marts.moved')?.hashed).toBe('2026-01,2026-03');
    expect(ends.rewritten).toEqual([
      'marts/moved/team_id=team-a/month=2026-01/part-0.parquet',
      'marts/moved/team_id=team-a/month=2026-03/part-0.parquet',
    ]);
    // one row deleted by hand at the head of February's row group, whose row ids share a bin of the live-row count
    // with the tail of January's: February is read again, January is not
    await runOn(own, `delete from marts.moved where date = DATE '2026-02-01' and k = 0`);
    const deleted = await exportLake(own, ownLake);
    expect(deleted.staged.get('marts.moved')?.hashed).toBe('2026-02');
    expect(deleted.rewritten).toEqual(['marts/moved/team_id=team-a/month=2026-02/part-0.parquet']);

    const before = await rowGroups(own);
    await runOn(own, `delete from marts.moved where date < DATE '2026-02-01'`);
    const after = await rowGroups(own);
    // what the test is about: February and March are the only row groups left, in the blocks they had
    expect(after.map((g) => g.blocks)).toEqual(before.slice(1).map((g) => g.blocks));

    const { staged, rewritten } = await exportLake(own, ownLake);
    // February's and March's prints are as recorded: no row read; January's partition is gone with its rows
    expect(staged.get('marts.moved')?.hashed).toBe('none');
    expect(rewritten).toEqual([]);
    expect(existsSync(join(ownLake, 'marts/moved/team_id=team-a/month=2026-01'))).toBe(false);
    const w = await Database.open(own, { access_mode: 'READ_ONLY' });
    try {
      const lakeRows = `select team_id, project_id, date, k, v from read_parquet('${ownLake}/marts/moved/**/*.parquet', hive_partitioning = true, hive_types_autocast = false)`;
      expect(Number(await w.session.scalar(`select count(*) from (${lakeRows})`))).toBe(2 * 122880 - 1);
      expect(
        Number(await w.session.scalar(`select count(*) from (select * from marts.moved except all ${lakeRows})`)),
      ).toBe(0);
    } finally {
      w.close();
    }
  });
});

describe('two warehouses writing their teams into one lake', () => {
  it("keeps each writer's hashes apart: one's change is found by its own export and touches none of the other's", async () => {
    const shared = join(dir, 'shared-lake');
    const writers = ['a', 'b'].map((team) => join(dir, `writer-${team}.duckdb`));
    for (const [i, path] of writers.entries()) {
      await runOn(
        path,
        `create schema marts;
         create table marts.facts as
           select 'team-${'ab'[i]}' as team_id, 'p' || (k % 3) as project_id, DATE '2026-01-01' + d::int as date, k, d + k as v
             from range(90) a(d), range(50) b(k);`,
      );
      await exportLake(path, shared);
    }
    const [a, b] = writers as [string, string];
    // the other writer's partitions of the same months (other storage keys) do not make either read its rows again
    expect((await exportLake(a, shared)).staged.get('marts.facts')?.hashed).toBe('none');
    expect((await exportLake(b, shared)).staged.get('marts.facts')?.hashed).toBe('none');
    await runOn(b, `update marts.facts set v = v + 1 where date = DATE '2026-02-03' and k = 4`);
    expect((await exportLake(a, shared)).rewritten).toEqual([]);
    expect((await exportLake(b, shared)).rewritten).toEqual([
      'marts/facts/team_id=team-b/month=2026-02/part-0.parquet',
    ]);
    const rows = await readWithDuckDB<{ n: number; v: number }>(
      `select count(*)::INT as n, sum(v)::INT as v from read_parquet('${shared}/marts/facts/**/*.parquet', hive_partitioning = true)`,
    );
    // both teams' rows, B's changed value among them
    expect(rows[0]).toEqual({ n: 2 * 90 * 50, v: 2 * ((50 * (89 * 90)) / 2 + (90 * (49 * 50)) / 2) + 1 });
  });
});
