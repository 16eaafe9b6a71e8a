/**
 * A query's result as a person or a pipe reads it, the way DuckDB's own CLI prints it: every value as DuckDB writes
 * it as text (a DATE as `2026-11-24`, a TIMESTAMP as `2026-11-24 13:00:00`, a DECIMAL exact, a list as `[1, 2]`).
 * The table shows NULL as `NULL`, right-aligns number columns and rounds doubles for display only; CSV (RFC 4180,
 * NULL empty) and JSON lines (NULL null, integers and decimals as exact JSON numbers) carry every value exact, and
 * are written as the rows come.
 */
import type { DuckDBTypeId } from '@duckdb/node-api';
import {
  EXACT_NUMBER_TYPES,
  FLOAT_TYPES,
  type QueryColumns,
  type QueryRows,
  type RowSink,
} from '../warehouse/locked-query.js';

export type ResultFormat = 'table' | 'csv' | 'json';
export const RESULT_FORMATS: readonly ResultFormat[] = ['table', 'csv', 'json'];

/** Widest a table cell gets before it is cut with an ellipsis (CSV and JSON are never cut). */
const MAX_CELL = 60;
/** Decimals a double keeps in the table (CSV and JSON print it exact). */
const TABLE_DECIMALS = 6;

/**
 * Where a query's rows are printed as they come (warehouse/locked-query.ts streams them): CSV and JSON lines a chunk
 * at a time, waiting for `out` to drain, so memory stays flat whatever the row count; the table keeps the rows it
 * shows and one more (to know there are more), then stops reading. `end` prints what is left (the table) and
 * returns the rows printed.
 */
export function resultSink(
  format: ResultFormat,
  maxRows: number,
  out: NodeJS.WritableStream,
): RowSink & { end(): Promise<number> } {
  let head: QueryColumns = { columns: [], types: [] };
  let rows = 0;
  const shown: QueryRows = { cells: [], json: [] };
  const write = (text: string): Promise<void> | undefined =>
    out.write(text) ? undefined : new Promise<void>((done) => out.once('drain', done));
  return {
    json: format === 'json',
    async columns(columns) {
      head = columns;
      if (format === 'csv') await write(`${head.columns.map(csvCell).join(',')}\n`);
    },
    async rows(chunk) {
      if (format === 'table') {
        shown.cells.push(...chunk.cells.slice(0, maxRows + 1 - shown.cells.length));
        return shown.cells.length <= maxRows;
      }
      rows += chunk.cells.length;
      const text =
        format === 'json'
          ? chunk.json.map((row) => `{${row.map((v, i) => `${JSON.stringify(head.columns[i])}:${v}`).join(',')}}\n`)
          : chunk.cells.map((row) => `${row.map((v) => csvCell(v ?? '')).join(',')}\n`);
      await write(text.join(''));
      return true;
    },
    async end() {
      if (format !== 'table') return rows;
      await write(table(head, shown.cells, maxRows));
      return Math.min(shown.cells.length, maxRows);
    },
  };
}

/** The rows shown (at most maxRows, and one more when there are more) as an aligned table with a count line. */
function table(head: QueryColumns, rows: Array<Array<string | null>>, maxRows: number): string {
  const { columns, types } = head;
  const shown = rows.slice(0, maxRows);
  const cells = shown.map((row) => row.map((v, i) => (v === null ? 'NULL' : cut(display(v, types[i])))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
  const numeric = types.map((t) => EXACT_NUMBER_TYPES.has(t) || FLOAT_TYPES.has(t));
  const line = (values: string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const parts = [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  const count = `${shown.length} ${shown.length === 1 ? 'row' : 'rows'}`;
  // the rows past --max-rows are not read, so not counted: the table costs what it shows
  parts.push(
    rows.length > maxRows ? `(${count} shown, more not read: --max-rows, or --format csv for all)` : `(${count})`,
  );
  return `${parts.join('\n')}\n`;
}

/** A double rounded to TABLE_DECIMALS for the eye (`0.999999999999999` → `1.0`); other values as DuckDB wrote them. */
function display(text: string, type: DuckDBTypeId | undefined): string {
  if (type === undefined || !FLOAT_TYPES.has(type)) return text;
  const n = Number(text);
  if (!Number.isFinite(n) || /e/i.test(text)) return text;
  const rounded = Number(n.toFixed(TABLE_DECIMALS));
  if (rounded === 0 && n !== 0) return n.toPrecision(2);
  return Number.isInteger(rounded) ? rounded.toFixed(1) : String(rounded);
}

function cut(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
