/**
 * Output folders checked before any work starts: a path the user cannot write (a read-only mount, another user's
 * folder, a file in the way) is a clear USAGE error naming the flag, instead of a Node stack trace half-way through
 * an export or, for `vwh run`, after the embedded services started.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
  for (const folder of missingFolders(dir).missing) mkdirSync(folder);
}

type Prepared = { ok: true } | { ok: false; fileAt: string } | { ok: false; error: unknown };

/** Creates `dir` (with its parents, see makeFolders) and proves a file can be created in it. */
function prepare(dir: string): Prepared {
  const { missing, existing } = missingFolders(dir);
  if (existing.kind === 'file') return { ok: false, fileAt: existing.path };
  try {
    for (const folder of missing) mkdirSync(folder);
    const probe = join(dir, `.vwh-probe-${randomBytes(4).toString('hex')}`);
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

/** `dir` made and proven writable: its absolute path, or USAGE naming `flag` and what to do. */
export function ensureWritableDir(dir: string, flag: string): string {
  const target = resolve(dir);
  refuseUnless(prepare(target), flag, target, target);
  return target;
}

/** `file`'s folder made and proven writable, and `file` not a folder: its absolute path, or USAGE naming `flag`. */
export function ensureWritableFile(file: string, flag: string): string {
  const target = resolve(file);
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
