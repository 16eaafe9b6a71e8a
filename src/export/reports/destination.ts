/**
 * Where a report goes and in which format: `--out FILE` (replaced atomically), or stdout when `--out` is absent or
 * `-`; the format from `--format`, else from the file's extension (`.csv`, `.json`, `.md`), else CSV on stdout. A
 * report for stdout is written as it would be to a file, into a private temporary folder, then copied to stdout:
 * the same bytes either way (DuckDB's CSV writer, the BOM, the formula guard).
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { VwhError } from '../../core/errors.js';
import { REPORT_FORMATS, type ReportFormat } from './format-names.js';

const BY_EXTENSION: Record<string, ReportFormat> = { '.csv': 'csv', '.json': 'json', '.md': 'md', '.markdown': 'md' };

/** True when the report goes to stdout: no `--out`, or `--out -`. */
export function toStdout(out: string | undefined): boolean {
  return out === undefined || out === '-';
}

/** The format of a table report: `--format`, else `--out`'s extension, else CSV on stdout (USAGE when they disagree). */
export function reportFormat(format: ReportFormat | undefined, out: string | undefined): ReportFormat {
  const file = toStdout(out) ? undefined : out;
  const fromName = file ? BY_EXTENSION[extname(file).toLowerCase()] : undefined;
  if (format && fromName && format !== fromName) {
    throw new VwhError(
      'USAGE',
      `--format ${format} but --out ${file} ends in ${extname(file ?? '')}: drop --format (the extension decides), or name the file .${format}.`,
    );
  }
  const chosen = format ?? fromName ?? (file ? undefined : 'csv');
  if (!chosen) {
    throw new VwhError(
      'USAGE',
      `Cannot tell the format from --out ${file}: name it .csv, .json or .md, or pass --format ${REPORT_FORMATS.join('|')}.`,
    );
  }
  return chosen;
}

/**
 * Runs `write` with the file to write: `out` itself, or for stdout a file in a private temporary folder whose bytes
 * are then copied to `stdout` (and the folder removed).
 */
export async function writeToDestination<T>(
  out: string | undefined,
  extension: string,
  stdout: NodeJS.WritableStream,
  write: (file: string) => Promise<T>,
): Promise<T> {
  if (!toStdout(out)) return write(out as string);
  const dir = mkdtempSync(join(tmpdir(), 'vwh-report-'));
  try {
    const file = join(dir, `report.${extension}`);
    const result = await write(file);
    await pipeline(createReadStream(file), stdout, { end: false });
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
