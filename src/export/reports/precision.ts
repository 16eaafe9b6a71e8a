/**
 * People's precision (issue 54): what a person reads (a report as CSV or Markdown, the HTML report's tables) is
 * rounded to the decimals an analyst reads; JSON, Parquet and Arrow keep the warehouse's full precision.
 */
import { DuckDBTypeId } from '@duckdb/node-api';

/** Decimals of a percentage (`_pct`) or a difference of percentages (`_pp`): 42.3 %, +5.2 pp. */
export const PEOPLE_DECIMALS = 1;

/** The decimals a person reads for a fractional column of this name: 1 for `_pct`/`_pp`, 4 for p-values, else 2. */
export function peopleDecimals(column: string): number {
  if (/(^|_)p_value$/.test(column)) return 4;
  if (/_(pct|pp)$/.test(column)) return PEOPLE_DECIMALS;
  return 2;
}

/** A column type whose values can carry more decimals than a person reads (integers, days and text cannot). */
export function isFractional(typeId: DuckDBTypeId | undefined): boolean {
  return typeId === DuckDBTypeId.DOUBLE || typeId === DuckDBTypeId.FLOAT || typeId === DuckDBTypeId.DECIMAL;
}

/** `value` rounded half away from zero to `decimals`, as DuckDB's round() does in the CSV. */
export function roundForPeople(value: number, decimals: number): number {
  const f = 10 ** decimals;
  const rounded = (Math.sign(value) * Math.round(Math.abs(value) * f)) / f;
  return rounded === 0 ? 0 : rounded;
}
