import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

type Params = DuckDBValue[] | Record<string, DuckDBValue>;

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
    return reader.getRowObjectsJS().map(normalise) as T[];
  }

  async scalar<T = unknown>(sql: string, params?: Params): Promise<T> {
    const row = (await this.all(sql, params))[0];
    return (row ? Object.values(row as object)[0] : undefined) as T;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      const result = await fn();
      await this.connection.run('COMMIT');
      return result;
    } catch (error) {
      await this.connection.run('ROLLBACK').catch(() => {});
      throw error;
    }
  }
}

function normalise(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (
      typeof value === 'bigint' &&
      value <= BigInt(Number.MAX_SAFE_INTEGER) &&
      value >= -BigInt(Number.MAX_SAFE_INTEGER)
    ) {
      row[key] = Number(value);
    }
  }
  return row;
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
