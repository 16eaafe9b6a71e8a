/**
 * A report's rows as JSON or Markdown (CSV is DuckDB's own writer: reports/run.ts). Values are made plain first (`plainValue`): days as
 * `YYYY-MM-DD`, instants as ISO 8601 UTC (`2026-09-26T13:00:00Z`), integers exact, lists as JSON. JSON keeps every
 * decimal; Markdown, read by people, rounds fractional columns as precision.ts says.
 */
import { DuckDBTypeId } from '../../warehouse/duckdb-api.js';
import type { Report } from './catalog.js';
import { isFractional, peopleDecimals, roundForPeople } from './precision.js';

export { REPORT_FORMATS, type ReportFormat } from './format-names.js';

export interface ReportResult {
  columns: string[];
  typeIds: DuckDBTypeId[];
  rows: unknown[][];
}

export type Plain = string | number | boolean | null | Plain[];

/** One DuckDB JS value as text, number or boolean, by the column's type. */
export function plainValue(value: unknown, typeId: DuckDBTypeId): Plain {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) {
    if (typeId === DuckDBTypeId.DATE) return value.toISOString().slice(0, 10);
    return value.toISOString().replace('.000Z', 'Z');
  }
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (Array.isArray(value)) return value.map((v) => plainValue(v, DuckDBTypeId.VARCHAR));
  if (typeof value === 'object') return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  return value as Plain;
}

function text(value: Plain): string {
  if (value === null) return '';
  if (Array.isArray(value)) return JSON.stringify(value);
  return String(value);
}

/** A JSON array of row objects, keys in the report's column order. */
export function toJson(result: ReportResult): string {
  const rows = result.rows.map((row) =>
    Object.fromEntries(
      result.columns.map((c, i) => [c, plainValue(row[i], result.typeIds[i] ?? DuckDBTypeId.VARCHAR)]),
    ),
  );
  return `${JSON.stringify(rows, null, 2)}\n`;
}

/** A Markdown document: the title, description, parameters applied and a table. */
export function toMarkdown(result: ReportResult, report: Report, applied: Record<string, string>): string {
  const cell = (value: string) => value.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const params = Object.entries(applied).map(([k, v]) => `${k} = ${v}`);
  const out = [
    `# ${report.title}`,
    '',
    report.description.trim(),
    '',
    `Parameters: ${params.length > 0 ? params.join(', ') : 'none (every project, every day)'}. Rows: ${result.rows.length}.`,
    '',
    `| ${result.columns.map(cell).join(' | ')} |`,
    `| ${result.columns.map((_, i) => (isNumeric(result.typeIds[i]) ? '---:' : '---')).join(' | ')} |`,
  ];
  const decimals = result.columns.map((c, i) => (isFractional(result.typeIds[i]) ? peopleDecimals(c) : undefined));
  for (const row of result.rows) {
    out.push(
      `| ${row
        .map((v, i) => {
          const plain = plainValue(v, result.typeIds[i] ?? DuckDBTypeId.VARCHAR);
          const d = decimals[i];
          return cell(text(d !== undefined && typeof plain === 'number' ? roundForPeople(plain, d) : plain));
        })
        .join(' | ')} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

function isNumeric(typeId: DuckDBTypeId | undefined): boolean {
  return (
    typeId !== undefined &&
    [
      DuckDBTypeId.TINYINT,
      DuckDBTypeId.SMALLINT,
      DuckDBTypeId.INTEGER,
      DuckDBTypeId.BIGINT,
      DuckDBTypeId.HUGEINT,
      DuckDBTypeId.FLOAT,
      DuckDBTypeId.DOUBLE,
      DuckDBTypeId.DECIMAL,
    ].includes(typeId)
  );
}
