import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { VwhError } from '../core/errors.js';

export const DEFAULT_DB_PATH = 'data/warehouse.duckdb';

/**
 * What DuckDB may take of the machine. Its own default memory limit is 80 % of RAM, which lets the buffer pool of a
 * long backfill grow to gigabytes on a box that also runs other jobs; beyond the limit DuckDB spills to a temp
 * directory beside the file instead of growing.
 */
export interface DbResources {
  /** DuckDB `memory_limit`, e.g. `512MB`, `2GB`. */
  memoryLimit: string;
  /** DuckDB `threads`. */
  threads: number;
}

/** A cron box: half a gigabyte and two threads; raise them with --memory-limit / --threads (or the config). */
export const DEFAULT_RESOURCES: DbResources = { memoryLimit: '512MB', threads: 2 };

export function duckdbOptions(resources: DbResources): Record<string, string> {
  return { memory_limit: resources.memoryLimit, threads: String(resources.threads) };
}

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

/**
 * One DuckDB database file (or `:memory:`) and one connection to it. The seam everything above `src/warehouse/`
 * uses: `run` for statements, `all` for rows as plain JS values, `transaction` for all-or-nothing work.
 */
export class Database {
  private constructor(
    readonly path: string,
    readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
  ) {}

  static async open(path: string = DEFAULT_DB_PATH, options: Record<string, string> = {}): Promise<Database> {
    if (path !== ':memory:' && !path.startsWith(':memory:')) mkdirSync(dirname(resolve(path)), { recursive: true });
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(path, options);
    } catch (error) {
      throw translateOpenError(error, path);
    }
    const connection = await instance.connect();
    return new Database(path, instance, connection);
  }

  /** A second connection on the same instance (DuckDB runs queries of different connections in parallel). */
  async connect(): Promise<DuckDBConnection> {
    return this.instance.connect();
  }

  async run(sql: string, params?: Params): Promise<void> {
    await this.connection.run(sql, params);
  }

  async all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJS().map(normalizeRow) as T[];
  }

  async one<T extends Row = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async scalar<T = unknown>(sql: string, params?: Params): Promise<T> {
    const row = await this.one(sql, params);
    return (row ? Object.values(row)[0] : undefined) as T;
  }

  /** Runs `fn` inside BEGIN/COMMIT on this connection; any throw rolls everything back. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return withTransaction(this.connection, fn);
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/** BEGIN … COMMIT around `fn` on `connection`; a throw rolls back and is rethrown. */
export async function withTransaction<T>(connection: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await fn();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** BIGINT/HUGEINT come back as bigint; numbers that fit are handed on as numbers, which is what callers expect. */
export function normalizeRow(row: Record<string, unknown>): Row {
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

function translateOpenError(error: unknown, path: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/lock/i.test(message)) {
    const pid = /PID (\d+)/.exec(message)?.[1];
    return new VwhError(
      'DB_LOCKED',
      `The warehouse ${path} is locked by another process${pid ? ` (PID ${pid})` : ''}. ` +
        'Close the program that holds it (a BI tool, a SQL shell, another vwh run) or wait for it to finish, then run again. ' +
        'Readers that only query can open it with read_only while no writer runs.',
      { cause: error, details: { path, pid } },
    );
  }
  return new VwhError('DB_ERROR', `Could not open the warehouse ${path}: ${message}`, { cause: error });
}
