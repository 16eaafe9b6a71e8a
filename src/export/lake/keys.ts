/**
 * The partition keys the lake's write groups rows by, as ENUMs of the partition values the content-hash pass found.
 * DuckDB's partitioned COPY turns every row's keys into `Value`s and looks them up in a map: a VARCHAR key costs a
 * string allocation per row and key, an ENUM key a small integer; the month comes from a list indexed by the
 * row's year and month rather than a strftime per row. The folder names are the same text either way (an ENUM's
 * value is its label). The write's CPU fell measurably (docs/lab/2026-11-export-lake.md, "What was cut").
 */
import { quoteIdent, quoteLiteral } from '../../core/sql.js';

export interface PartitionKey {
  name: string;
  /** The key's text (the folder name), never null: `coalesce(CAST(… AS VARCHAR), '__HIVE_DEFAULT_PARTITION__')`. */
  expr: string;
  /** For the month: the DATE it is the `%Y-%m` of. */
  date?: string;
  /** A small integer the write groups by as it is (the slot of a day): no text, no ENUM; its folder is its digits. */
  integer?: string;
}

/** Past these, a key stays VARCHAR: the ENUM or the month list would make a statement of hundreds of kilobytes. */
const MAX_ENUM_VALUES = 10_000;
const MAX_MONTHS = 1_200;

/** `<key> AS "<name>"` for each key, typed as an ENUM of `values` (every partition's value of that key). */
export function enumKeys(keys: PartitionKey[], values: string[][]): string[] {
  return keys.map((key, i) => {
    const labels = [...new Set(values.map((v) => v[i] as string))].sort();
    return `${enumKey(key, labels)} AS ${quoteIdent(key.name)}`;
  });
}

function enumKey(key: PartitionKey, labels: string[]): string {
  if (key.integer) return key.integer;
  if (labels.length === 0 || labels.length > MAX_ENUM_VALUES) return key.expr;
  const type = `ENUM(${labels.map(quoteLiteral).join(', ')})`;
  const cast = `CAST(${key.expr} AS ${type})`;
  if (!key.date) return cast;
  // 'YYYY-MM' → months since year 0; other labels (null, infinity) go through the cast
  const months = new Map<number, string>();
  for (const label of labels) {
    const match = /^(\d{4,})-(\d{2})$/.exec(label);
    if (match) months.set(Number(match[1]) * 12 + Number(match[2]) - 1, label);
  }
  if (months.size === 0) return cast;
  const first = Math.min(...months.keys());
  const last = Math.max(...months.keys());
  if (last - first + 1 > MAX_MONTHS) return cast;
  const list = Array.from({ length: last - first + 1 }, (_, i) => {
    const label = months.get(first + i);
    return label === undefined ? 'NULL' : quoteLiteral(label);
  });
  // below 1 is out of the list (DuckDB counts a negative index from the end): the cast decides
  const index = `greatest(year(${key.date}) * 12 + month(${key.date}) - ${first}, 0)`;
  return `coalesce(CAST([${list.join(', ')}] AS ${type}[])[${index}], ${cast})`;
}
