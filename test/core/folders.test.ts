/**
 * Output folders are checked before work starts: made if missing, proven writable, and a file in the way, a folder
 * named as a file or a folder nobody can write is a USAGE error naming the flag. On the real file system: /sys is
 * not writable even by root (CI runs as root, so permission bits would prove nothing), and /proc is where Node's
 * recursive mkdir never returns.
 */
import { existsSync, openSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import {
  describeFsError,
  ensureWritableDir,
  ensureWritableFile,
  makeFolder,
  makeFolders,
  realPathOf,
  refuseInputs,
} from '../../src/core/folders.js';
import { DEMO_WORLD, startEmbedded } from '../../src/ops/embedded.js';
import { tempDir } from '../fixtures.js';

const dir = tempDir('vwh-folders-').dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(VwhError);
    expect((error as VwhError).exitCode).toBe(64);
    return (error as VwhError).message;
  }
  throw new Error('expected a USAGE error');
}

const linux = process.platform === 'linux' && existsSync('/sys/kernel');

describe('makeFolder', () => {
  it('takes a folder another writer made first as made, and still refuses a file of that name', () => {
    // Two exports into one lake: each looks for the missing folders, then makes them; the other may win.
    const raced = join(dir, 'raced');
    makeFolder(raced);
    makeFolder(raced);
    expect(readdirSync(raced)).toEqual([]);
    const file = join(dir, 'raced-file');
    writeFileSync(file, '');
    expect(() => makeFolder(file)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  });
});

describe('ensureWritableDir / ensureWritableFile', () => {
  it('make the missing folders and leave nothing behind but them', () => {
    const deep = join(dir, 'a', 'b', 'c');
    expect(ensureWritableDir(deep, '--out')).toBe(deep);
    expect(readdirSync(deep)).toEqual([]);
    const file = join(dir, 'x', 'y', 'report.csv');
    expect(ensureWritableFile(file, '--out')).toBe(file);
    expect(readdirSync(join(dir, 'x', 'y'))).toEqual([]);
  });

  it('refuse a file in the way, and a folder given for a file, naming the flag', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    expect(usage(() => ensureWritableDir(file, '--out'))).toBe(
      `--out ${file} is a file, not a folder: point --out at a folder.`,
    );
    expect(usage(() => ensureWritableDir(join(file, 'lake'), '--out'))).toBe(
      `--out ${join(file, 'lake')}: ${file} is a file, not a folder.`,
    );
    expect(usage(() => ensureWritableFile(join(file, 'w.duckdb'), '--db'))).toBe(
      `--db ${join(file, 'w.duckdb')}: ${file} is a file, not a folder.`,
    );
    expect(usage(() => ensureWritableFile(dir, '--out'))).toMatch(/is a folder: name a file in it/);
  });

  it.skipIf(!linux)('refuse a folder nobody can write, and return under /proc instead of hanging', () => {
    expect(usage(() => ensureWritableDir('/sys/vwh-lake', '--out'))).toMatch(
      /^--out \/sys\/vwh-lake cannot be written \((operation not permitted, EPERM|permission denied, EACCES)\): point --out at a folder this user can write\.$/,
    );
    expect(usage(() => ensureWritableFile('/sys/w.duckdb', '--db'))).toMatch(/its folder \/sys cannot be written/);
    expect(usage(() => ensureWritableDir('/proc/vwh-lake', '--out'))).toMatch(
      /^--out \/proc\/vwh-lake cannot be written/,
    );
  });
});

describe('makeFolders', () => {
  it('makes the missing folders like a recursive mkdir, and throws under /proc where that never returns', () => {
    const deep = join(dir, 'm', 'n', 'o');
    makeFolders(deep);
    makeFolders(deep);
    expect(readdirSync(join(dir, 'm', 'n'))).toEqual(['o']);
    if (linux) expect(() => makeFolders('/proc/vwh-x/y')).toThrow(/ENOENT|EACCES|EPERM/);
  });
});

describe('describeFsError', () => {
  it('says what, where and why in one line; nothing for other errors', () => {
    let error: unknown;
    try {
      openSync(join(dir, 'missing', 'file'), 'r');
    } catch (e) {
      error = e;
    }
    expect(describeFsError(error)).toBe(`cannot open ${join(dir, 'missing', 'file')}: no such file or folder [ENOENT]`);
    expect(describeFsError(new Error('boom'))).toBeUndefined();
  });
});

describe('the embedded services', () => {
  it.skipIf(!linux)('close their server when the world cannot be anchored beside the warehouse', async () => {
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const before = servers();
    await expect(
      startEmbedded({ ...DEMO_WORLD, projects: 1, prompts: 2, historyDays: 3, today: '2026-04-10' }, '/sys/w.duckdb'),
    ).rejects.toMatchObject({ code: 'EACCES' });
    // a closed server leaves the list of live handles a few turns of the event loop later; an open one never does
    // (fewer than before: a server of a file that ran before in this worker process left meanwhile)
    for (let i = 0; i < 100 && servers() > before; i++) await new Promise((done) => setTimeout(done, 20));
    expect(servers()).toBeLessThanOrEqual(before);
  });
});

describe('refuseInputs', () => {
  const root = tempDir('vwh-inputs-').dir;
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const lake = join(root, 'lake');
  const inputs = [
    { kind: 'warehouse' as const, path: join(root, 'w.duckdb'), what: 'the warehouse' },
    { kind: 'lake' as const, path: lake, what: 'the lake' },
  ];

  it('lets an output be exactly the input of its own kind, but not inside it nor another input', () => {
    expect(() => refuseInputs(lake, '--out', inputs, 'lake')).not.toThrow();
    expect(usage(() => refuseInputs(join(lake, 'x'), '--out', inputs, 'lake'))).toContain('is inside the lake');
    expect(usage(() => refuseInputs(join(root, 'w.duckdb'), '--out', inputs, 'lake'))).toContain('is the warehouse');
    // a sibling whose name starts with the input's is not inside it
    expect(() => refuseInputs(join(root, 'lake2'), '--out', inputs)).not.toThrow();
  });

  it('follows a dangling symlink to where the file would be written', () => {
    const link = join(root, 'pointer');
    symlinkSync(join(root, 'w.duckdb'), link);
    expect(usage(() => refuseInputs(link, '--out', inputs))).toContain('(which resolves to');
    expect(realPathOf(join(root, 'not', 'yet'))).toBe(join(realPathOf(root), 'not', 'yet'));
  });
});
