import { AsyncLocalStorage } from 'node:async_hooks';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { VwhError } from '../core/errors.js';
import { normalizeRow } from './duckdb.js';

export type SqlParams = DuckDBValue[];
export type SqlRow = Record<string, unknown>;

/**
 * One DuckDB connection used by one writer (one team's sync). Operations are serialized: a DuckDB connection
 * runs one statement at a time, and a transaction must not interleave with another caller's statements.
 */
export class Session {
  private tail: Promise<unknown> = Promise.resolve();
  /** Set inside `transaction`'s callback (and only in its async context), so its statements do not queue. */
  private readonly inTransaction = new AsyncLocalStorage<true>();

  private constructor(readonly connection: DuckDBConnection) {}

  /** A session on `connection`, in UTC (timestamps from the API are converted to UTC wall time). */
  static async create(connection: DuckDBConnection): Promise<Session> {
    await connection.run("SET TimeZone = 'UTC'");
    return new Session(connection);
  }

  /** Runs `fn` alone on the connection (waits for earlier callers). Inside `transaction` it runs directly. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTransaction.getStore()) return fn();
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => {});
    return next;
  }

  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: SqlParams): Promise<number> {
    return this.exclusive(
      async () => (await this.connection.run(sql, params?.length ? params : undefined)).rowsChanged,
    );
  }

  all<T extends SqlRow = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.exclusive(async () => {
      const reader = await this.connection.runAndReadAll(sql, params?.length ? params : undefined);
      return reader.getRowObjectsJS().map(normalizeRow) as T[];
    });
  }

  /** BEGIN … COMMIT around `fn`; a throw rolls back. Statements of `fn` go straight to the connection. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.connection.run('BEGIN TRANSACTION');
      try {
        const result = await this.inTransaction.run(true, fn);
        await this.connection.run('COMMIT');
        return result;
      } catch (error) {
        await this.connection.run('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  close(): void {
    this.connection.closeSync();
  }
}

/** Wraps a DuckDB error in a VwhError that names the statement's purpose (never its parameters). */
export function dbError(purpose: string, error: unknown): VwhError {
  const message = error instanceof Error ? error.message : String(error);
  return new VwhError('DB_ERROR', `${purpose}: ${message}`, { cause: error });
}
