/** Output paths that cannot escape their folder, and files that appear whole or not at all. */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { shown, VwhError } from '../core/errors.js';
import { makeFolders } from '../core/folders.js';
import { isPathSegment } from '../core/inputs.js';

/** Throws USAGE unless `value` is safe as one path segment (a table, a report, a hive partition value). */
export function checkSegment(value: string, what: string): string {
  if (!isPathSegment(value)) {
    throw new VwhError(
      'USAGE',
      `${what} ${shown(value)} cannot be used in a file name: use letters, digits, _ . : - only (no path separators, no "..").`,
    );
  }
  return value;
}

/** `root` joined with `parts`, refused when the result would leave `root`. */
export function inside(root: string, ...parts: string[]): string {
  const base = resolve(root);
  const target = resolve(base, ...parts);
  const rel = relative(base, target);
  if (rel === '' ? parts.length > 0 : rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new VwhError('USAGE', `${parts.join('/')} would write outside ${base}.`);
  }
  return target;
}

/** A temp name beside `path`, so the final rename stays on one file system (and is atomic). */
export function tempBeside(path: string): string {
  return resolve(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Writes `chunks` to a temp file beside `path`, fsyncs it and renames it over `path`: a reader sees the old file
 * or the new one, never half of one, and a failure (or a kill) leaves the old file as it was.
 */
export function writeFileAtomic(path: string, chunks: string | Buffer | Iterable<string | Buffer>): number {
  makeFolders(dirname(path));
  const tmp = tempBeside(path);
  const fd = openSync(tmp, 'w');
  let bytes = 0;
  try {
    const parts = typeof chunks === 'string' || Buffer.isBuffer(chunks) ? [chunks] : chunks;
    for (const part of parts) {
      const buffer = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      let offset = 0;
      while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
      bytes += buffer.length;
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, path);
  return bytes;
}
