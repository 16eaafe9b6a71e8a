/** `vwh report NAME`: one named report, its parameters bound, written atomically as CSV, JSON or Markdown. */
import { readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import type { DuckDBValue } from '@duckdb/node-api';
import { VwhError } from '../../core/errors.js';
import { ensureWritableFile, type GuardedInput } from '../../core/folders.js';
import type { Logger } from '../../core/log.js';
import { silentLogger } from '../../core/log.js';
import { quoteIdent, quoteLiteral } from '../../core/sql.js';
import { type Database, damagedFileError, isDamage } from '../../warehouse/duckdb.js';
import { DuckDBTypeId } from '../../warehouse/duckdb-api.js';
import { tempBeside, writeFileAtomic } from '../paths.js';
import { withWarehouse } from '../source.js';
import type { ExportSummary } from '../summary.js';
import { findReport, loadReports, type Report } from './catalog.js';
import { REPORT_FORMATS, type ReportFormat, type ReportResult, toJson, toMarkdown } from './formats.js';
import { bindParameters, outsideDataNote, type ReportParameters } from './parameters.js';
import { isFractional, peopleDecimals } from './precision.js';

export interface WriteReportOptions extends ReportParameters {
  db: string;
  name: string;
  format: ReportFormat;
  out: string;
  /** A UTF-8 byte order mark first, so that Excel opens the CSV as UTF-8. */
  bom?: boolean;
  /** CSV: text cells as they are, without the formula guard (`neutralizedSql`). */
  rawCsv?: boolean;
  log?: Logger;
  /** The reports folder (default: sql/reports). */
  reportsDir?: string;
  /** What the output may not replace or write into (the warehouse, its WAL, the published copy, the lake, the journal). */
  inputs?: readonly GuardedInput[];
}

/** Runs `report` with its bound parameters; the rows as DuckDB JS values and the column types. */
export async function runReport(
  db: Database,
  report: Report,
  params: ReportParameters,
): Promise<ReportResult & { applied: Record<string, string> }> {
  const bound = await bindParameters(db, report, params);
  let reader: Awaited<ReturnType<Database['connection']['runAndReadAll']>>;
  try {
    reader = await db.connection.runAndReadAll(report.sql, bound.values);
  } catch (error) {
    throw reportFailed(db, report, error);
  }
  return {
    columns: reader.columnNames(),
    typeIds: reader.columnTypes().map((t) => t.typeId),
    rows: reader.getRowsJS(),
    applied: bound.applied as Record<string, string>,
  };
}

export async function writeReport(options: WriteReportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const log = options.log ?? silentLogger;
  if (!REPORT_FORMATS.includes(options.format)) {
    throw new VwhError('USAGE', `--format must be one of ${REPORT_FORMATS.join(', ')}, got ${String(options.format)}.`);
  }
  if (!options.out) throw new VwhError('USAGE', '--out is required: the file to write the report to.');
  const report = findReport(options.name, loadReports(options.reportsDir));
  const out = ensureWritableFile(options.out, '--out', options.inputs);
  return withWarehouse(options.db, async (db) => {
    let rows: number;
    let bytes: number;
    if (options.format === 'csv') {
      ({ rows, bytes } = await copyCsv(db, report, options, out));
    } else {
      const result = await runReport(db, report, options);
      rows = result.rows.length;
      bytes = writeFileAtomic(
        out,
        options.format === 'json' ? toJson(result) : toMarkdown(result, report, result.applied),
      );
    }
    const note = await outsideDataNote(db, options);
    const summary: ExportSummary = {
      kind: 'report',
      files: 1,
      rows,
      bytes,
      ms: Date.now() - started,
      outputs: [out],
      ...(note ? { note } : {}),
    };
    log.info('report written', { report: report.name, format: options.format, rows, bytes, out });
    return summary;
  });
}

/**
 * CSV through DuckDB's own writer: RFC 4180 quoting (a field with a comma, quote, CR or LF quoted, quotes doubled),
 * CRLF record ends, ISO days and instants (UTC, to the second), into a temp file renamed over `out`. With `bom`, the
 * byte order mark goes first. Days need no DATEFORMAT: DuckDB writes a DATE as `YYYY-MM-DD` by itself, the same bytes
 * as `%Y-%m-%d` (test/export/reports.test.ts), without a strftime per value; instants need TIMESTAMPFORMAT (the
 * `T` and the `Z`), which is most of what this costs beyond a bare `COPY … (HEADER)` (docs/exports.md, benchmarks).
 */
async function copyCsv(
  db: Database,
  report: Report,
  params: WriteReportOptions,
  out: string,
): Promise<{ rows: number; bytes: number }> {
  const bound = await bindParameters(db, report, params);
  const tmp = tempBeside(out);
  try {
    let result: Awaited<ReturnType<Database['connection']['run']>>;
    try {
      const sql = await peopleSql(db, report.sql, bound.values, !params.rawCsv);
      result = await db.connection.run(
        `COPY (${sql}) TO ${quoteLiteral(tmp)}
           (FORMAT csv, HEADER, DELIMITER ',', QUOTE '"', ESCAPE '"', NEW_LINE '\r\n',
            TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%SZ')`,
        bound.values,
      );
    } catch (error) {
      throw reportFailed(db, report, error);
    }
    if (params.bom) {
      const bytes = writeFileAtomic(out, [Buffer.from('\uFEFF', 'utf8'), readFileSync(tmp)]);
      return { rows: Number(result.rowsChanged), bytes };
    }
    renameSync(tmp, out);
    return { rows: Number(result.rowsChanged), bytes: statSync(out).size };
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * `sql` as a person reads it in a spreadsheet: each fractional column rounded to the decimals precision.ts gives its
 * name (42.3 %, not 42.2764227642), and, with `neutralize`, each text column guarded against CSV injection (OWASP):
 * a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, tab or CR as a formula, so API text such as a
 * competitor named `=HYPERLINK("http://evil.example","click")` became a live link; such cells get a single quote
 * first, which spreadsheets show as text. Numbers, days and instants are not text and stay as they are (a negative
 * number is still a number). `--raw-csv` skips the guard, not the rounding.
 */
export async function peopleSql(
  db: Database,
  sql: string,
  values: Record<string, DuckDBValue>,
  neutralize: boolean,
): Promise<string> {
  // the columns and their types, from the query planned with its parameters and no rows read
  const empty = await db.connection.runAndReadAll(`SELECT * FROM (${sql}) LIMIT 0`, values);
  const types = empty.columnTypes();
  const columns = empty.columnNames().map((column, i) => {
    const name = quoteIdent(column);
    const typeId = types[i]?.typeId;
    if (isFractional(typeId)) return `round(${name}, ${peopleDecimals(column)}) AS ${name}`;
    return neutralize && typeId === DuckDBTypeId.VARCHAR
      ? `CASE WHEN left(${name}, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${name} ELSE ${name} END AS ${name}`
      : name;
  });
  return `SELECT ${columns.join(', ')} FROM (${sql})`;
}

function reportFailed(db: Database, report: Report, error: unknown): VwhError {
  // a block with a bad checksum is a damaged file, not a model to build (warehouse/duckdb.ts)
  if (isDamage(error)) return damagedFileError(db.path, error);
  return new VwhError(
    'DB_ERROR',
    `The report ${report.name} failed on this warehouse (are the models built and up to date? vwh models build): ${(error as Error).message}`,
    { cause: error },
  );
}
