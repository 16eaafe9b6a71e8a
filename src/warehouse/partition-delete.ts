/**
 * The DELETE statements that clear the partitions a batch re-lands (the loader runs them in the batch's transaction,
 * before its appends).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { quoteIdent } from '../core/sql.js';
import type { Partition } from './load-types.js';

/**
 * The DELETEs that clear a batch's re-landed partitions of one table: one statement per partition shape (the
 * same equality columns and date column), joining the table with the partitions' keys, so the table is scanned
 * once per batch rather than once per unit. The constant bounds on the date column let DuckDB skip row groups by
 * their min/max (the sync appends in date order, so old row groups fall outside a lookback's days).
 */
export function deleteStatements(
  table: string,
  partitions: readonly Partition[],
  teamId: string,
  types: Record<string, string>,
): Array<{ sql: string; params: DuckDBValue[] }> {
  const shapes = new Map<string, Partition[]>();
  for (const p of partitions) {
    const shape = `${Object.keys(p.equals).sort().join(',')}|${p.between?.column ?? ''}`;
    shapes.set(shape, [...(shapes.get(shape) ?? []), p]);
  }
  const out: Array<{ sql: string; params: DuckDBValue[] }> = [];
  for (const group of shapes.values()) {
    const first = group[0] as Partition;
    if (group.length === 1 || (Object.keys(first.equals).length === 0 && !first.between)) {
      const { where, params } = partitionPredicate(first, teamId, types);
      out.push({ sql: `DELETE FROM ${table} WHERE ${where}`, params });
      continue;
    }
    const keys = Object.keys(first.equals).sort();
    for (const key of keys) {
      if (!types[key]) throw new Error(`partition column ${key} is not a column of the target table`);
    }
    const params: DuckDBValue[] = [teamId];
    const tuples = group.map((p) => {
      const cells = keys.map((key) => {
        params.push(p.equals[key] ?? null);
        return `CAST($${params.length} AS ${types[key]})`;
      });
      if (p.between) {
        params.push(p.between.from, p.between.to);
        cells.push(`CAST($${params.length - 1} AS DATE)`, `CAST($${params.length} AS DATE)`);
      }
      return `(${cells.join(', ')})`;
    });
    const names = keys.map((_, i) => `k${i}`);
    const on = keys.map((key, i) => `t.${quoteIdent(key)} IS NOT DISTINCT FROM p.k${i}`);
    if (first.between) {
      names.push('d_from', 'd_to');
      const column = `t.${quoteIdent(first.between.column)}`;
      on.push(`${column} BETWEEN p.d_from AND p.d_to`);
      const from = group.map((p) => p.between?.from ?? '').sort()[0] ?? '';
      const to =
        group
          .map((p) => p.between?.to ?? '')
          .sort()
          .at(-1) ?? '';
      params.push(from, to);
      on.push(`${column} BETWEEN CAST($${params.length - 1} AS DATE) AND CAST($${params.length} AS DATE)`);
    }
    out.push({
      sql:
        `DELETE FROM ${table} AS t USING (VALUES ${tuples.join(', ')}) AS p(${names.join(', ')}) ` +
        `WHERE t.team_id = $1 AND ${on.join(' AND ')}`,
      params,
    });
  }
  return out;
}

/** `team_id = $1 AND a IS NOT DISTINCT FROM $2 … [AND col BETWEEN $n AND $n+1]`. */
export function partitionPredicate(
  partition: Partition,
  teamId: string,
  types: Record<string, string> = {},
): { where: string; params: DuckDBValue[] } {
  const params: DuckDBValue[] = [teamId];
  const parts = ['team_id = $1'];
  for (const [column, value] of Object.entries(partition.equals)) {
    params.push(value ?? null);
    const type = types[column];
    if (!type) throw new Error(`partition column ${column} is not a column of the target table`);
    parts.push(`${quoteIdent(column)} IS NOT DISTINCT FROM CAST($${params.length} AS ${type})`);
  }
  if (partition.between) {
    params.push(partition.between.from, partition.between.to);
    parts.push(
      `${quoteIdent(partition.between.column)} BETWEEN CAST($${params.length - 1} AS DATE) AND CAST($${params.length} AS DATE)`,
    );
  }
  return { where: parts.join(' AND '), params };
}
