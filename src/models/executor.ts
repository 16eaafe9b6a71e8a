import type { DuckDBConnection } from '@duckdb/node-api';

import { normalizeRow, type Params, withTransaction } from '../warehouse/duckdb.js';

/**
 * One DuckDB connection as the runner uses it: statements, rows as plain values, transactions. Each model being
 * built in parallel gets its own, because a transaction belongs to a connection.
 */
export class Executor {
  constructor(readonly connection: DuckDBConnection) {}

  /** Runs a statement; returns the rows it changed (0 for DDL). */
  async run(sql: string, params?: Params): Promise<number> {
    const result = await this.connection.run(sql, params);
    return Number(result.rowsChanged ?? 0);
  }

  async all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJS().map(normalizeRow) as T[];
  }

  async scalar<T = unknown>(sql: string, params?: Params): Promise<T> {
    const row = (await this.all(sql, params))[0];
    return (row ? Object.values(row as object)[0] : undefined) as T;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return withTransaction(this.connection, fn);
  }
}

/** Whether `schema.name` exists, and as what. */
export async function relationKind(
  exec: Executor,
  schema: string,
  name: string,
): Promise<'table' | 'view' | undefined> {
  const rows = await exec.all<{ kind: string }>(
    `SELECT 'table' AS kind FROM duckdb_tables() WHERE schema_name = $1 AND table_name = $2 AND NOT temporary
     UNION ALL
     SELECT 'view' FROM duckdb_views() WHERE schema_name = $1 AND view_name = $2 AND NOT internal AND NOT temporary`,
    [schema, name],
  );
  return rows[0]?.kind as 'table' | 'view' | undefined;
}
