import { AsyncLocalStorage } from 'node:async_hooks';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { VwhError } from '../core/errors.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
export type SqlParams = DuckDBValue[];
export type SqlRow = Record<string, unknown>;

/**
 * The one wrapper of a DuckDB connection: statements, rows as plain values, transactions. One writer uses it (one
 * team's sync, one model being built). Operations are serialized: a DuckDB connection runs one statement at a time,
 * and a transaction must not interleave with another caller's statements.
 */
export class Session {
  private tail: Promise<unknown> = Promise.resolve();
  /** Set inside `transaction`'s callback (and only in its async context), so its statements do not queue. */
  private readonly inTransaction = new AsyncLocalStorage<true>();
  /** Callers queued for the connection and not yet running (see `contended`). */
  private waiting = 0;
  private readonly contentionListeners = new Set<() => void>();

  private constructor(readonly connection: DuckDBConnection) {}

  /** A session on `connection`, in UTC (timestamps from the API are converted to UTC wall time). */
  static async create(connection: DuckDBConnection): Promise<Session> {
    return Session.of(connection).inUtc();
  }

  /** A session on `connection` as it is configured (the models run in the warehouse's own settings). */
  static of(connection: DuckDBConnection): Session {
    return new Session(connection);
  }

  /** Runs `fn` alone on the connection (waits for earlier callers). Inside `transaction` it runs directly. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTransaction.getStore()) return fn();
    this.waiting++;
    for (const listener of this.contentionListeners) listener();
    const run = () => {
      this.waiting--;
      return fn();
    };
    const next = this.tail.then(run, run);
    this.tail = next.catch(() => {});
    return next;
  }

  /**
   * Someone is queued for the connection behind its holder (a statement waiting for a transaction to end). A holder
   * that keeps its transaction open by choice (the loader through a lull) ends it instead: a caller that reads the
   * warehouse while fetching (the per-domain streams' top domains) otherwise waits out the transaction, and the
   * transaction waits for that caller's unit.
   */
  get contended(): boolean {
    return this.waiting > 0;
  }

  /** Calls `listener` each time a caller queues for the connection; returns the function that stops it. */
  onContention(listener: () => void): () => void {
    this.contentionListeners.add(listener);
    return () => this.contentionListeners.delete(listener);
  }

  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number> {
    return this.exclusive(() => runOn(this.connection, sql, params));
  }

  all<T = SqlRow>(sql: string, params?: Params): Promise<T[]> {
    return this.exclusive(() => allOn<T>(this.connection, sql, params));
  }

  /**
   * The connection for one caller alone until it calls `release`, for a transaction this session does not run
   * itself (kysely's, from its BEGIN to its COMMIT): the holder's statements run at once, everyone else's wait for
   * the release instead of landing inside that transaction.
   */
  hold(): Promise<HeldSession> {
    return new Promise((granted) => {
      void this.exclusive(
        () =>
          new Promise<void>((release) =>
            granted({
              run: (sql, params) => runOn(this.connection, sql, params),
              all: <T>(sql: string, params?: Params) => allOn<T>(this.connection, sql, params),
              release,
            }),
          ),
      );
    });
  }

  /** Sets the connection's time zone to UTC (what `create` does); resolves to this session. */
  async inUtc(): Promise<this> {
    await this.run("SET TimeZone = 'UTC'");
    return this;
  }

  /** The first row (undefined when there is none). */
  async one<T = SqlRow>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** The first column of the first row (undefined when there is none). */
  async scalar<T = unknown>(sql: string, params?: Params): Promise<T> {
    const row = (await this.all(sql, params))[0];
    return (row ? Object.values(row as object)[0] : undefined) as T;
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

/** A session held by one caller (`Session.hold`). */
export interface HeldSession {
  run(sql: string, params?: Params): Promise<number>;
  all<T = SqlRow>(sql: string, params?: Params): Promise<T[]>;
  /** Gives the connection back to the session's other callers. */
  release(): void;
}

async function runOn(connection: DuckDBConnection, sql: string, params: Params | undefined): Promise<number> {
  return Number((await connection.run(sql, given(params))).rowsChanged ?? 0);
}

async function allOn<T>(connection: DuckDBConnection, sql: string, params: Params | undefined): Promise<T[]> {
  const reader = await connection.runAndReadAll(sql, given(params));
  return reader.getRowObjectsJS().map(normalizeRow) as T[];
}

/** BIGINT/HUGEINT come back as bigint; numbers that fit are handed on as numbers, which is what callers expect. */
export function normalizeRow(row: Record<string, unknown>): SqlRow {
  for (const [key, value] of Object.entries(row)) {
    if (
      typeof value === 'bigint' &&
      value <= BigInt(Number.MAX_SAFE_INTEGER) &&
      value >= BigInt(Number.MIN_SAFE_INTEGER)
    ) {
      row[key] = Number(value);
    }
  }
  return row;
}

function given(params: Params | undefined): Params | undefined {
  if (params === undefined) return undefined;
  return (Array.isArray(params) ? params.length : Object.keys(params).length) > 0 ? params : undefined;
}

/** Wraps a DuckDB error in a VwhError that names the statement's purpose (never its parameters). */
export function dbError(purpose: string, error: unknown): VwhError {
  const message = error instanceof Error ? error.message : String(error);
  return new VwhError('DB_ERROR', `${purpose}: ${message}`, { cause: error });
}
