/**
 * Output folders checked before any work starts: a path the user cannot write (a read-only mount, another user's
 * folder, a file in the way) is a clear USAGE error naming the flag, instead of a Node stack trace half-way through
 * an export or, for `vwh run`, after the embedded services started. And an output that would land on one of the
 * tool's inputs (the warehouse, its WAL, the published copy, the lake, the events journal) is refused the same way
 * (`refuseInputs`), symlinks followed, before anything is written.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { VwhError } from './errors.js';

/** What a file-system error code means, in words a person can act on. */
const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a file of that name is in the way',
  EISDIR: 'it is a folder',
  ENOENT: 'no such file or folder',
  EMFILE: 'too many open files (raise ulimit -n)',
  ENAMETOOLONG: 'the name is too long',
};

/** The folders of `dir` that do not exist yet, the top one first, and the nearest path that does exist. */
function missingFolders(dir: string): { missing: string[]; existing: { path: string; kind?: 'folder' | 'file' } } {
  const missing: string[] = [];
  let path = resolve(dir);
  let kind = kindOf(path);
  while (kind === undefined && dirname(path) !== path) {
    missing.unshift(path);
    path = dirname(path);
    kind = kindOf(path);
  }
  return { missing, existing: { path, kind } };
}

/**
 * `mkdirSync(dir, { recursive: true })` without its hang: Node's recursive mkdir never returns for a path under
 * /proc (Node 20-24), so the missing folders are made one at a time, the top one first. Throws Node's error.
 */
export function makeFolders(dir: string): void {
  for (const folder of missingFolders(dir).missing) makeFolder(folder);
}

/**
 * One folder made, or found made: another writer (a second `vwh export` into the same lake) may create it between
 * the look for missing folders and this mkdir, which is no failure. A file of that name still throws EEXIST.
 */
export function makeFolder(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || kindOf(folder) !== 'folder') throw error;
  }
}

type Prepared = { ok: true } | { ok: false; fileAt: string } | { ok: false; error: unknown };

/** Creates `dir` (with its parents, see makeFolders) and proves a file can be created in it. */
function prepare(dir: string): Prepared {
  const { missing, existing } = missingFolders(dir);
  if (existing.kind === 'file') return { ok: false, fileAt: existing.path };
  try {
    for (const folder of missing) makeFolder(folder);
    const probe = join(dir, `.vwh-probe-${randomBytes(4).toString('hex')}`);
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

/** What an input is to the tool; an output may be exactly the input of its own kind (the lake export writes the lake). */
export type InputKind = 'warehouse' | 'wal' | 'state' | 'published' | 'lake' | 'journal';

/** A file or folder the tool reads or serves, which no output may replace or write into. */
export interface GuardedInput {
  kind: InputKind;
  path: string;
  /** In words, with where it was configured: `the warehouse (--db)`. */
  what: string;
}

/**
 * The path `path` names once symlinks are followed: `realpath` for one that exists; for one that does not exist yet,
 * its nearest existing folder's real path with the rest appended (a dangling symlink is followed to its target).
 */
export function realPathOf(path: string, hops = 0): string {
  const abs = resolve(path);
  try {
    return realpathSync.native(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    const joined = join(realPathOf(parent, hops), basename(abs));
    try {
      if (hops < 40 && lstatSync(joined).isSymbolicLink()) {
        return realPathOf(resolve(dirname(joined), readlinkSync(joined)), hops + 1);
      }
    } catch {
      // not there at all: the joined path is where it will be
    }
    return joined;
  }
}

/**
 * USAGE (exit 64) when `output`, symlinks followed, is one of `inputs` or inside one of them, naming `flag`, the
 * input and the fix; before anything is written, so nothing is lost. `own` is the output's own kind: the lake export
 * may write the lake, the publish the published copy (but not into another input).
 */
export function refuseInputs(output: string, flag: string, inputs: readonly GuardedInput[], own?: InputKind): void {
  const real = realPathOf(output);
  for (const input of inputs) {
    const guarded = realPathOf(input.path);
    const same = real === guarded;
    if (same && input.kind === own) continue;
    if (!same && !real.startsWith(guarded.endsWith(sep) ? guarded : guarded + sep)) continue;
    const shown = resolve(output);
    const via = shown === real ? '' : ` (which resolves to ${real})`;
    throw new VwhError(
      'USAGE',
      `${flag} ${shown}${via} is ${same ? input.what : `inside ${input.what} (${guarded})`}: writing there would ` +
        `destroy what vwh reads or serves. Point ${flag} at a path outside the warehouse, the files vwh keeps beside ` +
        'it (<warehouse>.wal, .run.lock, .runs.json, .embedded-world.json), the published copy, the lake and the ' +
        'events journal.',
    );
  }
}

/** `dir` made and proven writable: its absolute path, or USAGE naming `flag` and what to do. */
export function ensureWritableDir(
  dir: string,
  flag: string,
  inputs: readonly GuardedInput[] = [],
  own?: InputKind,
): string {
  const target = resolve(dir);
  refuseInputs(target, flag, inputs, own);
  refuseUnless(prepare(target), flag, target, target);
  return target;
}

/** `file`'s folder made and proven writable, and `file` not a folder: its absolute path, or USAGE naming `flag`. */
export function ensureWritableFile(
  file: string,
  flag: string,
  inputs: readonly GuardedInput[] = [],
  own?: InputKind,
): string {
  const target = resolve(file);
  refuseInputs(target, flag, inputs, own);
  if (kindOf(target) === 'folder') {
    throw new VwhError('USAGE', `${flag} ${target} is a folder: name a file in it (e.g. ${join(target, 'report')}).`);
  }
  refuseUnless(prepare(dirname(target)), flag, target, dirname(target));
  return target;
}

/** The USAGE error for a `folder` that `prepare` could not make writable, said of `target` (the folder or a file in it). */
function refuseUnless(prepared: Prepared, flag: string, target: string, folder: string): void {
  if (prepared.ok) return;
  if ('fileAt' in prepared) {
    throw new VwhError(
      'USAGE',
      prepared.fileAt === target
        ? `${flag} ${target} is a file, not a folder: point ${flag} at a folder.`
        : `${flag} ${target}: ${prepared.fileAt} is a file, not a folder.`,
    );
  }
  const reason = reasonOf(prepared.error);
  throw new VwhError(
    'USAGE',
    folder === target
      ? `${flag} ${target} cannot be written (${reason}): point ${flag} at a folder this user can write.`
      : `${flag} ${target}: its folder ${folder} cannot be written (${reason}): point ${flag} at a file in a folder this user can write.`,
    { cause: prepared.error },
  );
}

function kindOf(path: string): 'folder' | 'file' | undefined {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] ? `${REASONS[code]}, ${code}` : String((error as Error).message ?? error);
}

/**
 * A Node file-system error as one line (what, where, why), for the CLI's last resort: not a stack trace. Undefined
 * for any other error.
 */
export function describeFsError(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== 'string' || typeof e.syscall !== 'string') return undefined;
  const where = e.path ? ` ${e.path}` : '';
  return `cannot ${e.syscall}${where}: ${REASONS[e.code] ?? e.message} [${e.code}]`;
}
