import type { DuckDBValue } from '@duckdb/node-api';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult } from 'kysely';
import { timestampValue } from '../duckdb-api.js';
import type { HeldSession, Session } from '../session.js';

/**
 * Kysely's driver over one `Session`: every query runs on the session's connection, in its transaction if any.
 * The connection is handed to one Kysely caller at a time (as Kysely's SQLite driver does), and a `db.transaction()`
 * holds the session itself from BEGIN to COMMIT (`Session.hold`): another caller's query, through kysely or straight
 * through the session, waits instead of landing inside that transaction.
 */
export class DuckDBDriver implements Driver {
  private readonly connection: DuckDBKyselyConnection;
  private readonly mutex = new ConnectionMutex();

  constructor(session: Session) {
    this.connection = new DuckDBKyselyConnection(session);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as DuckDBKyselyConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as DuckDBKyselyConnection).end('COMMIT');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as DuckDBKyselyConnection).end('ROLLBACK');
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }

  async destroy(): Promise<void> {}
}

/** One holder at a time; the others wait in turn. */
class ConnectionMutex {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  async lock(): Promise<void> {
    while (this.held) await this.held;
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  unlock(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }
}

class DuckDBKyselyConnection implements DatabaseConnection {
  /** The session, held from BEGIN to COMMIT/ROLLBACK of a kysely transaction. */
  private held: HeldSession | undefined;

  constructor(private readonly session: Session) {}

  async begin(): Promise<void> {
    const held = await this.session.hold();
    try {
      await held.run('BEGIN TRANSACTION');
    } catch (error) {
      held.release();
      throw error;
    }
    this.held = held;
  }

  async end(sql: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const held = this.held;
    this.held = undefined;
    try {
      await (held ?? this.session).run(sql);
    } finally {
      held?.release();
    }
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const on = this.held ?? this.session;
    const params = compiled.parameters.map(toDuckDBValue);
    const node = compiled.query as { kind: string; returning?: unknown };
    if (node.kind === 'SelectQueryNode' || node.kind === 'RawNode' || node.returning) {
      return { rows: (await on.all(compiled.sql, params)) as R[] };
    }
    const changed = await on.run(compiled.sql, params);
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
