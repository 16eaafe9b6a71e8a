import { type DuckDBValue, timestampValue } from '@duckdb/node-api';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult } from 'kysely';
import type { Session } from '../session.js';

/** Kysely's driver over one `Session`: every query runs on the session's connection, in its transaction if any. */
export class DuckDBDriver implements Driver {
  private readonly connection: DuckDBKyselyConnection;

  constructor(session: Session) {
    this.connection = new DuckDBKyselyConnection(session);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as DuckDBKyselyConnection).raw('BEGIN TRANSACTION');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as DuckDBKyselyConnection).raw('COMMIT');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as DuckDBKyselyConnection).raw('ROLLBACK');
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}

class DuckDBKyselyConnection implements DatabaseConnection {
  constructor(private readonly session: Session) {}

  async raw(sql: string): Promise<void> {
    await this.session.run(sql);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const params = compiled.parameters.map(toDuckDBValue);
    const node = compiled.query as { kind: string; returning?: unknown };
    if (node.kind === 'SelectQueryNode' || node.kind === 'RawNode' || node.returning) {
      return { rows: (await this.session.all(compiled.sql, params)) as R[] };
    }
    const changed = await this.session.run(compiled.sql, params);
    return { rows: [], numAffectedRows: BigInt(changed) };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; kysely only calls this for .stream()
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('DuckDBDriver does not stream; use execute()');
  }
}

/** JS → DuckDB parameter: Dates become TIMESTAMPs, undefined becomes NULL, plain objects become JSON text. */
export function toDuckDBValue(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return timestampValue(BigInt(value.getTime()) * 1000n);
  if (typeof value === 'object' && !Array.isArray(value) && value.constructor === Object) return JSON.stringify(value);
  return value as DuckDBValue;
}
