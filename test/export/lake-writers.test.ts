/**
 * Teams sharded across machines (docs/scaling.md): two warehouses, each syncing its own team from its own key
 * (`vwh run`, a `teams` config, the reference services on port 0) and exporting into ONE shared lake, make the same
 * lake as one machine that syncs both teams: DuckDB's `read_parquet` with Hive partitions reads the same rows from
 * every table, whatever the partition layout.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { exportParquetLake } from '../../src/export/index.js';
import type { LakeManifest } from '../../src/export/lake/manifest.js';
import { runNightly } from '../../src/ops/nightly.js';
import { type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { TODAY, tempDir } from '../fixtures.js';
import { lakeDifferences, runOn, snapshot, tablesWithFiles } from './support.js';

/** Two worlds of their own seeds, each a team with its own key; 40 days, so facts span two months. */
const SHAPE = { projects: 2, prompts: 3, historyDays: 40, rateWindowMs: 200 } as const;

const dir = tempDir('vwh-lake-writers-').dir;
const sharedLake = join(dir, 'lake-shared');
const oneLake = join(dir, 'lake-one');
let north: ReferenceServer;
let south: ReferenceServer;
/** North's warehouse (its machine's). */
let northDb: string;

/** `vwh run` of `teams` into its own warehouse `name`, exporting raw, staging and marts to `lake`. */
async function machine(name: string, teams: { team: string; server: ReferenceServer }[], lake: string) {
  const home = join(dir, name);
  rmSync(home, { recursive: true, force: true });
  const db = join(home, 'warehouse.duckdb');
  const config = join(dir, `${name}.config.json`);
  mkdirSync(home, { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({
      teams: teams.map(({ team, server }) => {
        const apiKeyFile = join(dir, `${team}.key`);
        writeFileSync(apiKeyFile, `${server.demoApiKey}\n`);
        return { team, apiKeyFile, baseUrl: server.url };
      }),
      exports: { parquet: { outDir: lake, raw: true, staging: true } },
      publish: { enabled: false },
    }),
  );
  const out = new PassThrough();
  out.resume();
  const result = await runNightly(
    { db, config, today: TODAY, rateWindowMs: SHAPE.rateWindowMs, logFormat: 'json' },
    { out, logger: silentLogger },
  );
  expect(result.status, name).toBe('succeeded');
  return db;
}

function manifest(lake: string): LakeManifest {
  return JSON.parse(readFileSync(join(lake, '_manifest.json'), 'utf8')) as LakeManifest;
}

/** Rows of `table` in the one machine's lake and not the shared one, and the other way round. */
async function differing(table: string): Promise<number> {
  return (await lakeDifferences(oneLake, sharedLake, [table]))[table] ?? 0;
}

beforeAll(async () => {
  const start = (seed: number) => startReferenceServer({ port: 0, today: TODAY, demo: true, seed, ...SHAPE });
  [north, south] = await Promise.all([start(31), start(32)]);
  // the two writers at once, into one lake; then one machine with both teams
  [northDb] = await Promise.all([
    machine('north', [{ team: 'north', server: north }], sharedLake),
    machine('south', [{ team: 'south', server: south }], sharedLake),
  ]);
  await machine(
    'one',
    [
      { team: 'north', server: north },
      { team: 'south', server: south },
    ],
    oneLake,
  );
}, 300_000);

afterAll(async () => {
  await Promise.all([north?.close(), south?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('two writers, one lake', () => {
  it('hold the same tables, with the same columns, as one machine syncing both teams', () => {
    const tables = tablesWithFiles(oneLake);
    expect(tables.length).toBeGreaterThan(30);
    expect(tablesWithFiles(sharedLake)).toEqual(tables);
    const columns = (m: LakeManifest) =>
      Object.fromEntries(Object.entries(m.tables).map(([k, t]) => [k, [t.partition_by, t.columns]]));
    expect(columns(manifest(sharedLake))).toEqual(columns(manifest(oneLake)));
    expect(existsSync(join(sharedLake, '_staging'))).toBe(false);
  });

  it("read by DuckDB as the union: every row of every table equal to one machine's", async () => {
    expect(await lakeDifferences(oneLake, sharedLake)).toEqual({});
  });
});

describe('a third writer whose table has another shape', () => {
  /** North's warehouse copied as team west's, `marts.brand_visibility_daily` changed by `sql`, exported alone. */
  async function west(name: string, sql: string) {
    const db = join(dir, `${name}.duckdb`);
    copyFileSync(northDb, db);
    await runOn(db, `update marts.brand_visibility_daily set team_id = 'west'; ${sql}`);
    const before = snapshot(sharedLake);
    const error = await exportParquetLake({ db, outDir: sharedLake, tables: ['brand_visibility_daily'] }).then(
      () => undefined,
      (e: unknown) => e as { code?: string; exitCode?: number; message: string },
    );
    // refused before anything changed: the lake is the two writers' still, file for file
    expect(snapshot(sharedLake)).toEqual(before);
    return error;
  }

  it('is refused (exit 64) when it has a column the others have not: DuckDB would drop it or fail', async () => {
    const error = await west('west-column', 'alter table marts.brand_visibility_daily add column extra integer');
    expect(error?.exitCode).toBe(64);
    expect(error?.message).toMatch(
      /^marts\.brand_visibility_daily differs from the files team_id=north wrote into .*\(only here: extra INTEGER, by /,
    );
    expect(error?.message).toMatch(/run the same vwh version and models on every machine/);
  });

  it('is refused when its partition columns differ: DuckDB would refuse the whole table', async () => {
    // a date that is not a DATE: partitioned by team alone
    const error = await west('west-layout', 'alter table marts.brand_visibility_daily alter column date type varchar');
    expect(error?.exitCode).toBe(64);
    expect(error?.message).toMatch(/partitioned team_id here, team_id\/month there/);
    // and the lake still reads as the union
    expect(await differing('marts/brand_visibility_daily')).toBe(0);
  });
});
