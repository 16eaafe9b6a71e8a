/**
 * Where vwh reads and writes, said with absolute paths: a mistyped --db is a WARN in `vwh doctor` naming the
 * warehouses nearby (it answered OK: "the first vwh run creates it"), and `vwh query` on it names them too. The
 * built CLI in a working directory of its own, relative paths given.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { vwh } from './support.js';

const dir = tempDir('vwh-where-').dir;
const real = join(dir, 'data', 'warehouse.duckdb');

beforeAll(async () => {
  mkdirSync(join(dir, 'data'));
  const db = await Database.open(real);
  db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a mistyped warehouse path', () => {
  it('is a WARN in vwh doctor that names the warehouses nearby, with absolute paths', async () => {
    const r = await vwh(['doctor', '--db', 'data/warehose.duckdb'], { cwd: dir });
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => /^\S+ +warehouse /.test(l));
    expect(line).toBe(
      `WARN warehouse      ${join(dir, 'data', 'warehose.duckdb')} does not exist: the next vwh run creates a new ` +
        `warehouse there and syncs its whole history. Warehouses nearby: ${real}; if you meant one, fix --db (or "db" in the config).`,
    );
  });

  it('is named, absolute, with the warehouses nearby, by vwh query (exit 64)', async () => {
    const r = await vwh(['query', '--db', 'data/warehose.duckdb', 'select 1'], { cwd: dir });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain(`No warehouse at ${join(dir, 'data', 'warehose.duckdb')}.`);
    expect(r.stderr).toContain(`Warehouses nearby: ${real}.`);
  });
});
