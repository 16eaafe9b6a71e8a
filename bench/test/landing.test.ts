/**
 * bench/landing.bench.ts compares the cost a row of landing paths on a landed world's rows; a path that landed other
 * rows (a lost unit, a column written as another value) would make its figure meaningless. On a small world (seed 11,
 * 2 × 3 × 40): the units written from the landed file, landed again through the product's Loader at small
 * transaction bounds (several transactions) and in one transaction, and through DuckDB's `INSERT … SELECT` in three
 * transactions, each give the four replayed tables row for row as the sync landed them (every column but the run's
 * bookkeeping, `_sync_run_id` and `_extracted_at`).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { contentOf, tempDir } from '../../test/sync/support.js';
import { landWorld } from '../land-world.js';
import {
  LANDING_TABLES,
  landThroughDuckDB,
  landThroughLoader,
  type PathFigures,
  writeUnits,
} from '../landing.bench.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

async function replayed(path: string): Promise<Record<string, string[]>> {
  const warehouse = await Warehouse.open(path);
  try {
    const all = await contentOf(warehouse);
    return Object.fromEntries(Object.keys(LANDING_TABLES).map((t) => [t, all[t] ?? []]));
  } finally {
    warehouse.close();
  }
}

describe('bench/landing: every path lands the world’s rows', () => {
  it('seed 11, 2 × 3 × 40: the Loader (bounded and in one transaction) and DuckDB’s writer land the landed rows', async () => {
    const landed = join(tmp.dir, 'landed.duckdb');
    await landWorld({ world: { seed: 11, projects: 2, prompts: 3, days: 40 }, out: landed });
    const truth = await replayed(landed);
    const total = Object.values(truth).reduce((n, rows) => n + rows.length, 0);
    for (const table of Object.keys(LANDING_TABLES)) expect(truth[table]?.length, table).toBeGreaterThan(20);

    const { files, rows } = await writeUnits(landed, tmp.dir);
    expect(files).toHaveLength(2);
    expect(rows).toBe(total);

    const check = async (name: string, land: (file: string) => Promise<PathFigures>) => {
      const file = join(tmp.dir, `${name}.duckdb`);
      const figures = await land(file);
      expect(figures.rows, name).toBe(total);
      expect(figures.cpu_ms, name).toBeGreaterThan(0);
      const got = await replayed(file);
      for (const table of Object.keys(LANDING_TABLES))
        expect(got[table], `${name}: raw.${table}`).toEqual(truth[table]);
      return figures;
    };
    // Bounds of a few hundred rows: the loader's transactions end by rows, each one counted.
    const bounded = await check('loader-bounded', (f) => landThroughLoader(files, f, { rows: 400, ms: 60_000 }));
    expect(bounded.transactions).toBeGreaterThan(3);
    const one = await check('loader-one', (f) => landThroughLoader(files, f, { rows: 10_000_000, ms: 60_000 }));
    expect(one.transactions).toBe(1);
    const duck = await check('duckdb', (f) => landThroughDuckDB(landed, f, 3));
    expect(duck.transactions).toBe(3);
  });
});
