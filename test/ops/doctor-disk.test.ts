/**
 * `vwh doctor` on the file systems and the files themselves (issue 24, item 5): free space is checked on every file
 * system an output lives on, below the floor a FAIL; a damaged warehouse is called damaged (not "close the BI
 * tool"); `--deep` reads every block, so DuckDB checks every checksum, and names the damaged table. Real files:
 * a sparse warehouse for the space a run needs, bytes flipped in a copy for the damage.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Check, doctor } from '../../src/ops/doctor.js';
import { tempDir } from '../fixtures.js';
import { damageMiddleBlock, writeSmallWarehouse } from '../warehouse/damaged-file.js';

const dir = tempDir('vwh-doctor-disk-').dir;
// another file system than the temp folder's (tmpfs), for the published copy
const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/vwh-doctor-') : undefined;
const previousKey = process.env.VWH_API_KEY;
const good = join(dir, 'good.duckdb');

beforeAll(async () => {
  delete process.env.VWH_API_KEY;
  await writeSmallWarehouse(good);
});
afterAll(() => {
  if (previousKey !== undefined) process.env.VWH_API_KEY = previousKey;
  rmSync(dir, { recursive: true, force: true });
  if (shm) rmSync(shm, { recursive: true, force: true });
});

function config(name: string, body: object): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

const named = (checks: Check[], name: string) => checks.filter((c) => c.name === name);

describe('vwh doctor: disk', () => {
  it('checks every file system an output lives on, and fails below what the run needs there', async () => {
    expect(shm, '/dev/shm is the second file system of this test').toBeDefined();
    const folder = join(dir, 'huge');
    mkdirSync(folder);
    // a sparse warehouse of 8 TB: the run needs twice that beside it, and once for the published copy
    const db = join(folder, 'w.duckdb');
    writeFileSync(db, '');
    truncateSync(db, 8 * 1024 ** 4);
    const published = join(shm as string, 'published.duckdb');
    const checks = await doctor({ db, config: config('huge.json', { publish: { path: published }, exports: {} }) });
    const disks = named(checks, 'disk');
    expect(disks).toHaveLength(2);
    expect(disks.every((c) => c.status === 'fail')).toBe(true);
    const onShm = disks.find((c) => c.detail.includes(`file system of ${shm}`));
    expect(onShm?.detail).toMatch(/\(the published copy\); a run needs at least 8192\.0 GB there/);
    const beside = disks.find((c) => c.detail.includes(`file system of ${folder}`));
    expect(beside?.detail).toContain('(the warehouse, the models artifacts, the events journal)');
  });

  it('passes with room on each, and names what lives on each file system', async () => {
    const checks = await doctor({
      db: good,
      config: config('plain.json', { publish: { path: join(shm as string, 'p.duckdb') } }),
    });
    const disks = named(checks, 'disk');
    expect(disks.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(disks.map((c) => c.detail).join('\n')).toContain('(the published copy)');
  });
});

describe('vwh doctor: a damaged file', () => {
  it('says a warehouse cut short is damaged and how to restore it, not to close the BI tool', async () => {
    const cut = join(dir, 'cut.duckdb');
    copyFileSync(good, cut);
    truncateSync(cut, Math.floor(statSync(cut).size / 3));
    const [warehouse] = named(await doctor({ db: cut, config: config('cut.json', {}) }), 'warehouse');
    expect(warehouse?.status).toBe('fail');
    expect(warehouse?.detail).toContain(`${cut} is damaged`);
    expect(warehouse?.detail).toContain('copy the published copy (or a backup) over it');
    expect(warehouse?.detail).not.toContain('Close the BI tool');
  });

  it('--deep reads every block: a damaged table fails naming it, a sound copy passes; without --deep no read', async () => {
    const folder = join(dir, 'deep');
    mkdirSync(join(folder, 'published'), { recursive: true });
    const db = join(folder, 'w.duckdb');
    copyFileSync(good, db);
    copyFileSync(good, join(folder, 'published', 'w.duckdb'));
    damageMiddleBlock(db);
    const plain = await doctor({ db, config: config('deep.json', {}) });
    // the damaged block is data: the file opens, so only the deep pass finds it
    expect(named(plain, 'warehouse')[0]?.status).toBe('ok');
    expect(named(plain, 'deep warehouse')).toEqual([]);
    const checks = await doctor({ db, config: config('deep.json', {}), deep: true });
    const [deep] = named(checks, 'deep warehouse');
    expect(deep?.status).toBe('fail');
    expect(deep?.detail).toMatch(new RegExp(`^raw\\.chats: ${db} is damaged \\(Corrupt database file`));
    expect(named(checks, 'deep published')[0]).toMatchObject({ status: 'ok' });
    expect(named(checks, 'deep published')[0]?.detail).toContain('every block of its 2 tables read');
  });
});
