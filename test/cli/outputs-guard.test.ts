/**
 * No output lands on an input (issue 24, item 3): `report --out`, `export … --out`, `models --target-dir`,
 * `publish.path` and the events journal are refused with exit 64, before anything is written, when they resolve
 * (symlinks followed, also through a folder not made yet) to the warehouse, its WAL, the published copy, the lake
 * or a file inside them. Each case once wrote over the input (a 20 MB warehouse became a 15 KB CSV).
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listenForEvents } from '../../src/cli/commands/events.js';
import { main } from '../../src/cli/main.js';
import { VwhError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/log.js';
import { runNightly } from '../../src/ops/nightly.js';
import { publishWarehouse } from '../../src/ops/publish.js';
import { buildExportWorld, type ExportWorld } from '../export/support.js';

let world: ExportWorld;
let db: string;
let published: string;
let lake: string;
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
let dbDigest: string;
let publishedDigest: string;

beforeAll(async () => {
  world = await buildExportWorld();
  db = world.db;
  // the layout of a run's defaults beside the warehouse: published/<db>, read-only, and lake/
  published = join(world.dir, 'published', 'warehouse.duckdb');
  mkdirSync(join(world.dir, 'published'));
  copyFileSync(db, published);
  chmodSync(published, 0o444);
  lake = join(world.dir, 'lake');
  mkdirSync(join(lake, 'marts'), { recursive: true });
  writeFileSync(join(lake, '_manifest.json'), '{}');
  dbDigest = digest(db);
  publishedDigest = digest(published);
}, 120_000);
afterAll(() => world.cleanup());

/** `vwh …` as the binary runs it: its exit code and what it wrote to stderr. */
async function vwh(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main(['node', 'vwh', ...args]), stderr };
  } finally {
    spy.mockRestore();
    out.mockRestore();
  }
}

function expectInputsIntact(): void {
  expect(digest(db)).toBe(dbDigest);
  expect(digest(published)).toBe(publishedDigest);
  expect(readdirSync(lake).sort()).toEqual(['_manifest.json', 'marts']);
}

describe('report --out', () => {
  it('is refused on the warehouse: exit 64 naming it, the warehouse unchanged', async () => {
    const { code, stderr } = await vwh('report', 'weekly_visibility', '--db', db, '--format', 'csv', '--out', db);
    expect(code).toBe(64);
    expect(stderr).toContain(`--out ${db} is the warehouse: writing there would destroy`);
    expectInputsIntact();
  });

  it('is refused on the WAL and through a symlink to the warehouse', async () => {
    const wal = await vwh('report', 'weekly_visibility', '--db', db, '--format', 'json', '--out', `${db}.wal`);
    expect(wal.code).toBe(64);
    expect(wal.stderr).toContain("is the warehouse's write-ahead log");
    expect(existsSync(`${db}.wal`)).toBe(false);
    const link = join(world.dir, 'weekly.csv');
    symlinkSync(db, link);
    const linked = await vwh('report', 'weekly_visibility', '--db', db, '--format', 'csv', '--out', link);
    expect(linked.code).toBe(64);
    expect(linked.stderr).toContain(`--out ${link} (which resolves to ${db}) is the warehouse`);
    expectInputsIntact();
  });

  it('html is refused on the read-only published copy', async () => {
    const { code, stderr } = await vwh('report', 'html', '--db', db, '--out', published);
    expect(code).toBe(64);
    expect(stderr).toContain(`--out ${published} is the published copy`);
    expectInputsIntact();
  });

  it('is refused inside the lake, through a symlinked folder that does not exist yet under it', async () => {
    const door = join(world.dir, 'door');
    symlinkSync(lake, door);
    const out = join(door, 'new', 'weekly.md');
    const { code, stderr } = await vwh('report', 'weekly_visibility', '--db', db, '--format', 'md', '--out', out);
    expect(code).toBe(64);
    expect(stderr).toContain(`is inside the Parquet lake (exports.parquet.outDir) (${lake})`);
    expectInputsIntact();
  });

  it('is refused on the files vwh keeps beside the warehouse: the run lock, the ledger mirror, the world anchor', async () => {
    const beside = [
      [`${db}.run.lock`, 'csv', 'the run lock'],
      [`${db}.runs.json`, 'json', "the run ledger's mirror"],
      [`${db}.embedded-world.json`, 'json', "the embedded world's anchor"],
    ];
    for (const [out, format, what] of beside as [string, string, string][]) {
      const before = existsSync(out) ? digest(out) : undefined;
      const { code, stderr } = await vwh('report', 'weekly_visibility', '--db', db, '--format', format, '--out', out);
      expect(code).toBe(64);
      expect(stderr).toContain(`--out ${out} is ${what}`);
      expect(stderr).toContain('[USAGE]');
      expect(existsSync(out) ? digest(out) : undefined).toBe(before);
    }
    expectInputsIntact();
  });

  it('still writes anywhere else', async () => {
    const out = join(world.dir, 'reports', 'weekly.csv');
    expect((await vwh('report', 'weekly_visibility', '--db', db, '--format', 'csv', '--out', out)).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^project_name,project_id,week_start/);
  });
});

describe('export … --out', () => {
  it('arrow is refused on the lake', async () => {
    const { code, stderr } = await vwh('export', 'arrow', '--db', db, '--out', lake);
    expect(code).toBe(64);
    expect(stderr).toContain(`--out ${lake} is the Parquet lake`);
    expectInputsIntact();
  });

  it('parquet is refused inside the lake and under the published copy', async () => {
    const nested = await vwh('export', 'parquet', '--db', db, '--out', join(lake, 'marts', 'again'));
    expect(nested.code).toBe(64);
    expect(nested.stderr).toContain('is inside the Parquet lake');
    const onCopy = await vwh('export', 'parquet', '--db', db, '--out', join(published, 'lake'));
    expect(onCopy.code).toBe(64);
    expect(onCopy.stderr).toContain('is inside the published copy');
    expectInputsIntact();
  });

  it('follows the config in the working folder: its publish.path is guarded too', async () => {
    const elsewhere = join(world.dir, 'bi', 'served.duckdb');
    mkdirSync(join(world.dir, 'bi'));
    copyFileSync(db, elsewhere);
    const before = digest(elsewhere);
    const cwd = process.cwd();
    process.chdir(world.dir);
    writeFileSync(join(world.dir, 'vwh.config.json'), JSON.stringify({ publish: { path: elsewhere } }));
    try {
      const { code, stderr } = await vwh('report', 'html', '--db', db, '--out', elsewhere);
      expect(code).toBe(64);
      expect(stderr).toContain(`--out ${elsewhere} is the published copy (publish.path)`);
    } finally {
      writeFileSync(join(world.dir, 'vwh.config.json'), JSON.stringify({ exports: {}, publish: { enabled: false } }));
      process.chdir(cwd);
    }
    expect(digest(elsewhere)).toBe(before);
  });
});

describe('models --target-dir', () => {
  it('is refused on the lake', async () => {
    const inLake = await vwh('models', 'docs', '--db', db, '--target-dir', lake);
    expect(inLake.code).toBe(64);
    expect(inLake.stderr).toContain(`--target-dir ${lake} is the Parquet lake`);
    expectInputsIntact();
  });
});

describe('publish.path', () => {
  it('equal to the warehouse is refused before the run starts: exit 64, nothing run, the warehouse intact', async () => {
    const config = join(world.dir, 'self-publish.json');
    writeFileSync(config, JSON.stringify({ exports: {}, publish: { path: db } }));
    const out = new PassThrough();
    out.resume();
    const error = await runNightly({ db, config, embedded: true, logFormat: 'json' }, { out }).catch((e) => e);
    expect(error).toBeInstanceOf(VwhError);
    expect((error as VwhError).exitCode).toBe(64);
    expect((error as VwhError).message).toContain(`publish.path ${db} is the warehouse`);
    expectInputsIntact();
  });

  it('publishWarehouse itself refuses to copy the warehouse onto itself or its WAL', async () => {
    for (const target of [db, `${db}.wal`]) {
      const error = await publishWarehouse(db, target).catch((e) => e);
      expect((error as VwhError).exitCode).toBe(64);
    }
    expectInputsIntact();
  });
});

describe('the events journal', () => {
  it('is refused in the lake and on the warehouse, before the receiver listens', async () => {
    for (const journalDir of [lake, join(published, 'events'), db]) {
      const error = await listenForEvents({}, db, { secret: [], journalDir, port: 0 }, silentLogger).catch((e) => e);
      expect(error).toBeInstanceOf(VwhError);
      expect((error as VwhError).exitCode).toBe(64);
      expect((error as VwhError).message).toMatch(
        /^--journal-dir .* is (inside )?(the Parquet lake|the published copy|the warehouse)/,
      );
    }
    expectInputsIntact();
  });

  it('configured inside the lake fails vwh run before it starts', async () => {
    const config = join(world.dir, 'journal-in-lake.json');
    writeFileSync(
      config,
      JSON.stringify({ publish: { enabled: false }, events: { journalDir: join(lake, 'events') } }),
    );
    const out = new PassThrough();
    out.resume();
    const error = await runNightly({ db, config, embedded: true, logFormat: 'json' }, { out }).catch((e) => e);
    expect((error as VwhError).exitCode).toBe(64);
    expect((error as VwhError).message).toContain('events.journalDir');
    expectInputsIntact();
  });
});
