import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { VwhError } from '../core/errors.js';
import { Session } from './session.js';

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

/**
 * One DuckDB database file (or `:memory:`), open: its instance and first connection, and the `Session` that runs
 * statements on that connection (the one wrapper with run/all/transaction). Opening translates a held file into
 * DB_LOCKED; the connection keeps DuckDB's settings as opened (a `Warehouse` sets it to UTC).
 */
export class Database {
  /** Statements, rows and transactions on `connection`, one caller at a time. */
  readonly session: Session;

  private constructor(
    readonly path: string,
    readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
  ) {
    this.session = Session.of(connection);
  }

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

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
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
