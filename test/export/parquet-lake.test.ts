/**
 * The Parquet lake on a synced, modelled world: read back by DuckDB and by an independent reader, incremental
 * (unchanged partitions untouched, no orphans), two writer processes sharing one lake, and a kill -9.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSummary, exportParquetLake } from '../../src/export/index.js';
import type { LakeManifest } from '../../src/export/lake/manifest.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { BIN } from '../fixtures.js';
import { buildExportWorld, type ExportWorld, readWithDuckDB, snapshot } from './support.js';

let world: ExportWorld;
beforeAll(async () => {
  world = await buildExportWorld();
}, 300_000);
afterAll(() => world?.cleanup());

function mtimes(root: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.parquet')) {
      const path = join(e.parentPath, e.name);
      out[path.slice(root.length + 1)] = statSync(path).mtimeMs;
    }
  }
  return out;
}

/** The column `t` of `select`, run on the warehouse `db` opened read-only. */
async function names(db: string, select: string): Promise<string[]> {
  const w = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    return (await w.session.all<{ t: string }>(select)).map((r) => r.t);
  } finally {
    w.close();
  }
}

function marts(db: string): Promise<string[]> {
  return names(db, "select table_name as t from duckdb_tables() where schema_name = 'marts' order by 1");
}

function martsWithTeam(db: string): Promise<string[]> {
  return names(
    db,
    "select table_name as t from duckdb_columns() where schema_name = 'marts' and column_name = 'team_id' order by 1",
  );
}

/** Rows of the lake's table that are not in the warehouse's table, and the other way round (multisets). */
async function difference(db: string, lake: string, table: string): Promise<{ extra: number; missing: number }> {
  const w = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    await w.session.run("SET TimeZone = 'UTC'");
    const cols = (
      await w.session.all<{ c: string; t: string }>(
        `select column_name as c, data_type as t from duckdb_columns() where schema_name = 'marts' and table_name = $1 order by column_index`,
        [table],
      )
    ).map((r) => (r.t === 'TIMESTAMP' ? `"${r.c}"::timestamptz as "${r.c}"` : `"${r.c}"`));
    const names = cols.map((c) => c.replace(/.* as /, ''));
    const lakeRows = `select ${names.join(', ')} from read_parquet('${lake}/marts/${table}/**/*.parquet', hive_partitioning = true, hive_types_autocast = false)`;
    const martRows = `select ${cols.join(', ')} from marts.${table}`;
    const extra = await w.session.scalar<number>(`select count(*) from (${lakeRows} except all ${martRows})`);
    const missing = await w.session.scalar<number>(`select count(*) from (${martRows} except all ${lakeRows})`);
    return { extra: Number(extra), missing: Number(missing) };
  } finally {
    w.close();
  }
}

function runCli(args: string[], killOn?: RegExp): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
    if (killOn?.test(stderr) && child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('parquet lake', () => {
  it('holds every mart: DuckDB reads back exactly the marts rows, hyparquet the same counts and columns', async () => {
    const lake = join(world.dir, 'lake');
    const summary = await exportParquetLake({ db: world.db, outDir: lake });
    const names = await marts(world.db);
    expect(names.length).toBeGreaterThanOrEqual(10);
    const manifest = JSON.parse(readFileSync(join(lake, '_manifest.json'), 'utf8')) as LakeManifest;
    expect(Object.keys(manifest.tables).sort()).toEqual(names.map((n) => `marts.${n}`));
    expect(existsSync(join(lake, '_SUCCESS'))).toBe(true);
    expect(manifest.writers[0]?.sync_runs.length).toBe(1);
    expect(manifest.writers[0]?.model_build?.run_id).toBeTruthy();
    let total = 0;
    for (const name of names) {
      const table = manifest.tables[`marts.${name}`];
      if (!table) throw new Error(name);
      expect(await difference(world.db, lake, name), name).toEqual({ extra: 0, missing: 0 });
      // hyparquet: row counts of the files add up to the manifest's and the mart's; the files' columns are the
      // mart's minus the partition columns, which live in the path.
      let rows = 0;
      for (const part of table.partitions) {
        for (const file of part.files) {
          const buffer = readFileSync(join(lake, table.path, part.path, file));
          const meta = parquetMetadata(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
          rows += Number(meta.num_rows);
          const top = meta.schema.slice(1).filter((_, i, all) => i === 0 || !isChild(all, i));
          expect(top.map((s) => s.name)).toEqual(table.columns.map((c) => c.name));
        }
      }
      const count = await readWithDuckDB<{ n: number }>(
        `select count(*)::int as n from read_parquet('${lake}/marts/${name}/**/*.parquet', hive_partitioning = true)`,
      );
      expect(rows, name).toBe(table.rows);
      expect(count[0]?.n, name).toBe(table.rows);
      total += rows;
    }
    expect(summary.rows).toBe(total);
    // facts are split by month: the 40-day world spans two or three calendar months
    const daily = manifest.tables['marts.brand_visibility_daily'];
    expect(new Set(daily?.partitions.map((p) => p.path.split('/')[1])).size).toBeGreaterThanOrEqual(2);
    expect(daily?.partitions.every((p) => /^team_id=[^/]+\/month=[^/]+$/.test(p.path))).toBe(true);
    expect(daily?.partition_by).toEqual(['team_id', 'month']);
  }, 240_000);

  it('is incremental: the same data rewrites nothing; one changed partition rewrites one file; no orphans', async () => {
    const lake = join(world.dir, 'lake-incremental');
    const written = await exportParquetLake({ db: world.db, outDir: lake });
    const first = snapshot(lake);
    const firstTimes = mtimes(lake);
    const again = await exportParquetLake({ db: world.db, outDir: lake });
    expect(again.files).toBe(0);
    // what it kept is the whole lake, and the summary line says so (not "0 files, 0 rows" alone)
    expect(again.unchanged).toEqual({ files: written.files, rows: written.rows });
    expect(describeSummary(again)).toContain(
      `; ${written.files} files, ${written.rows.toLocaleString('en-US')} rows unchanged, kept`,
    );
    expect(mtimes(lake)).toEqual(firstTimes);
    const second = snapshot(lake);
    expect(Object.keys(second).sort()).toEqual(Object.keys(first).sort());

    // one day of one project changes: only its month's partition of that mart is rewritten
    const changed = await world.copy(
      'changed.duckdb',
      `update marts.brand_visibility_daily set mentions = mentions + 1
        where date = (select max(date) from marts.brand_visibility_daily)
          and project_id = (select min(project_id) from marts.brand_visibility_daily)`,
    );
    const third = await exportParquetLake({ db: changed, outDir: lake });
    expect(third.files).toBe(1);
    const after = mtimes(lake);
    const rewritten = Object.keys(after).filter((f) => after[f] !== firstTimes[f]);
    expect(rewritten).toHaveLength(1);
    expect(rewritten[0]).toMatch(/^marts\/brand_visibility_daily\/team_id=demo\/month=\d{4}-\d{2}\//);
    expect(await difference(changed, lake, 'brand_visibility_daily')).toEqual({ extra: 0, missing: 0 });

    // a project's rows vanish: its partitions go, the file set equals a fresh export of the same data
    const fewer = await world.copy(
      'fewer.duckdb',
      `delete from marts.share_of_voice_daily where project_id = (select min(project_id) from marts.share_of_voice_daily)`,
    );
    await exportParquetLake({ db: fewer, outDir: lake });
    const fresh = join(world.dir, 'lake-fresh');
    await exportParquetLake({ db: fewer, outDir: fresh });
    const files = (root: string) =>
      Object.keys(snapshot(root))
        .filter((f) => !f.startsWith('_'))
        .sort();
    expect(files(lake)).toEqual(files(fresh));
    expect(existsSync(join(lake, '_staging'))).toBe(false);
    expect(await difference(fewer, lake, 'share_of_voice_daily')).toEqual({ extra: 0, missing: 0 });
  }, 240_000);

  it('two processes export two teams into one lake; DuckDB over the lake is the union', async () => {
    // the same world under a second team: marts with a team column, and the project → team map the others use
    const teamB = await world.copy(
      'team-b.duckdb',
      [
        ...(await martsWithTeam(world.db)).map((t) => `update marts.${t} set team_id = 'team-b'`),
        `update raw.projects set team_id = 'team-b'`,
        `update ops.sync_runs set team_id = 'team-b'`,
      ].join(';\n'),
    );
    const lake = join(world.dir, 'lake-shared');
    const [a, b] = await Promise.all([
      runCli(['export', 'parquet', '--db', world.db, '--out', lake, '--log-format', 'json']),
      runCli(['export', 'parquet', '--db', teamB, '--out', lake, '--log-format', 'json']),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    for (const table of await marts(world.db)) {
      const [union] = await readWithDuckDB<{ a: number; b: number; n: number }>(
        `select count(*) filter (where team_id = 'demo')::int as a, count(*) filter (where team_id = 'team-b')::int as b,
                  count(*)::int as n
             from read_parquet('${lake}/marts/${table}/**/*.parquet', hive_partitioning = true)`,
      );
      const w = await Database.open(world.db, { access_mode: 'READ_ONLY' });
      const rows = Number(await w.session.scalar(`select count(*) from marts.${table}`));
      w.close();
      expect(union, table).toEqual({ a: rows, b: rows, n: 2 * rows });
    }
    const manifest = JSON.parse(readFileSync(join(lake, '_manifest.json'), 'utf8')) as LakeManifest;
    expect(manifest.writers.map((w) => w.scope).sort()).toEqual(['team_id=demo', 'team_id=team-b']);
    expect(readdirSync(join(lake, '_manifests')).sort()).toEqual(['team_id=demo.json', 'team_id=team-b.json']);
    // the demo writer re-exporting leaves team-b's partitions alone
    const before = mtimes(lake);
    await exportParquetLake({ db: world.db, outDir: lake });
    expect(mtimes(lake)).toEqual(before);
  }, 240_000);

  it('a kill -9 while the export writes leaves the previous export complete; the next run finishes it', async () => {
    const lake = join(world.dir, 'lake-killed');
    await exportParquetLake({ db: world.db, outDir: lake });
    const previous = snapshot(lake);
    const changed = await world.copy(
      'killed.duckdb',
      `update marts.brand_visibility_daily set mentions = mentions + 1 where true;
         update marts.share_of_voice_daily set brand_responses = brand_responses + 1 where true`,
    );
    // killed once the first changed table is staged, while the second is being written
    const killed = await runCli(
      ['export', 'parquet', '--db', changed, '--out', lake, '--log-format', 'json'],
      /"export table staged","table":"marts\.brand_visibility_daily"/,
    );
    expect(killed.code).toBeNull();
    const left = snapshot(lake);
    const visible = (s: Record<string, string>) =>
      Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('_staging/')));
    expect(visible(left)).toEqual(previous);
    expect(await difference(world.db, lake, 'brand_visibility_daily')).toEqual({ extra: 0, missing: 0 });

    const rerun = await runCli(['export', 'parquet', '--db', changed, '--out', lake, '--log-format', 'json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/removed the staging folder of an interrupted export/);
    expect(existsSync(join(lake, '_staging'))).toBe(false);
    expect(await difference(changed, lake, 'brand_visibility_daily')).toEqual({ extra: 0, missing: 0 });
    expect(await difference(changed, lake, 'share_of_voice_daily')).toEqual({ extra: 0, missing: 0 });
  }, 240_000);
});

/** Whether schema element `i` (of the flattened schema without its root) is nested inside an earlier group. */
function isChild(all: { num_children?: number }[], i: number): boolean {
  let pending = 0;
  for (let j = 0; j < i; j++) {
    if (pending > 0) pending--;
    pending += all[j]?.num_children ?? 0;
  }
  return pending > 0;
}
