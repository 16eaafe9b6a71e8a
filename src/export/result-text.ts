/**
 * A query's result as a person or a pipe reads it, the way DuckDB's own CLI prints it: every value as DuckDB writes
 * it as text (a DATE as `2026-11-24`, a TIMESTAMP as `2026-11-24 13:00:00`, a DECIMAL exact, a list as `[1, 2]`).
 * The table shows NULL as `NULL`, right-aligns number columns and rounds doubles for display only; CSV (RFC 4180,
 * NULL empty) and JSON lines (NULL null, integers and decimals as exact JSON numbers) carry every value exact.
 */
import type { DuckDBTypeId } from '@duckdb/node-api';
import { EXACT_NUMBER_TYPES, FLOAT_TYPES, type QueryResult } from '../warehouse/locked-query.js';

export type ResultFormat = 'table' | 'csv' | 'json';
export const RESULT_FORMATS: readonly ResultFormat[] = ['table', 'csv', 'json'];

/** Widest a table cell gets before it is cut with an ellipsis (CSV and JSON are never cut). */
const MAX_CELL = 60;
/** Decimals a double keeps in the table (CSV and JSON print it exact). */
const TABLE_DECIMALS = 6;

export function renderResult(result: QueryResult, format: ResultFormat, maxRows: number): string {
  if (format === 'json') {
    return result.json
      .map((row) => `{${row.map((v, i) => `${JSON.stringify(result.columns[i])}:${v}`).join(',')}}\n`)
      .join('');
  }
  if (format === 'csv') {
    const lines = [result.columns.map(csvCell).join(',')];
    for (const row of result.cells) lines.push(row.map((v) => csvCell(v ?? '')).join(','));
    return `${lines.join('\n')}\n`;
  }
  return table(result, maxRows);
}

function table(result: QueryResult, maxRows: number): string {
  const { columns, types } = result;
  const shown = result.cells.slice(0, maxRows);
  const cells = shown.map((row) => row.map((v, i) => (v === null ? 'NULL' : cut(display(v, types[i])))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
  const numeric = types.map((t) => EXACT_NUMBER_TYPES.has(t) || FLOAT_TYPES.has(t));
  const line = (values: string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const parts = [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  const total = result.cells.length;
  const more = total - shown.length;
  const count = `${total} ${total === 1 ? 'row' : 'rows'}`;
  parts.push(more > 0 ? `(${count}, ${more} not shown: --max-rows or --format csv)` : `(${count})`);
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
