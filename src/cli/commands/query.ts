/**
 * `vwh query`: runs one SQL statement on the warehouse, read-only and unable to touch any other file, and prints the rows as an aligned table, CSV or
 * JSON lines. It is there so that the queries `vwh run` and the docs suggest work without the DuckDB CLI installed.
 */
import type { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../../core/defaults.js';
import { VwhError } from '../../core/errors.js';
import { wholeNumber } from '../../core/inputs.js';
import type { SqlRow as Row } from '../../warehouse/session.js';
import { existingWarehouse, numberFlag } from '../validate.js';

export type QueryFormat = 'table' | 'csv' | 'json';

export interface QueryFlags {
  db: string;
  format: QueryFormat;
  maxRows: number;
}

const FORMATS: readonly QueryFormat[] = ['table', 'csv', 'json'];
/** Widest a table cell gets before it is cut with an ellipsis (CSV and JSON are never cut). */
const MAX_CELL = 60;

/** Runs `sql` on the warehouse, locked down (warehouse/locked-query.ts), and writes the result to `out`; returns the number of rows. */
export async function runQuery(sql: string, flags: QueryFlags, out: NodeJS.WritableStream): Promise<number> {
  if (!FORMATS.includes(flags.format)) {
    throw new VwhError('USAGE', `--format must be one of ${FORMATS.join(', ')}, got ${flags.format}.`);
  }
  const file = existingWarehouse('--db', flags.db);
  const { lockedQuery } = await import('../../warehouse/locked-query.js');
  const { columns, rows } = await lockedQuery(file, sql);
  out.write(render(columns, rows, flags));
  return rows.length;
}

function render(columns: string[], rows: Row[], flags: QueryFlags): string {
  if (flags.format === 'json') return rows.map((r) => `${JSON.stringify(r, jsonValue)}\n`).join('');
  if (flags.format === 'csv') {
    const lines = [columns.map(csvCell).join(',')];
    for (const r of rows) lines.push(columns.map((c) => csvCell(text(r[c]))).join(','));
    return `${lines.join('\n')}\n`;
  }
  const shown = rows.slice(0, flags.maxRows);
  const cells = shown.map((r) => columns.map((c) => cut(text(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
  const numeric = columns.map((c) => shown.length > 0 && shown.every((r) => r[c] === null || isNumber(r[c])));
  const line = (values: string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const parts = [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  const more = rows.length - shown.length;
  parts.push(
    more > 0 ? `(${rows.length} rows, ${more} not shown: --max-rows or --format csv)` : `(${rows.length} rows)`,
  );
  return `${parts.join('\n')}\n`;
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint';
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value, jsonValue);
  return String(value);
}

function jsonValue(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function cut(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function register(program: Command): void {
  program
    .command('query')
    .description('Run one SQL query on the warehouse (read-only) and print the rows: a table, CSV or JSON lines.')
    .argument('<sql>', 'the query, e.g. "select * from marts.brand_visibility_daily limit 5"')
    .option('--db <file>', 'the warehouse file', DEFAULT_DB_PATH)
    .option('--format <format>', `output: ${FORMATS.join(', ')}`, 'table')
    .option(
      '--max-rows <n>',
      'rows shown in table format (CSV and JSON print every row)',
      numberFlag('--max-rows', wholeNumber(1)),
      50,
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  vwh query "select * from ops.sync_runs order by started_at desc limit 1"\n' +
        '  vwh query --format csv "select * from marts.share_of_voice_daily" > sov.csv',
    )
    .action(async (sql: string, flags: QueryFlags) => {
      await runQuery(sql, flags, process.stdout);
    });
}
