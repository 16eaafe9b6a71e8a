import { AsyncLocalStorage } from 'node:async_hooks';
import { dirname, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DEFAULT_DB_PATH } from '../core/defaults.js';
import { VwhError } from '../core/errors.js';
import { makeFolders } from '../core/folders.js';
import { DuckDBInstance } from './duckdb-api.js';
import { Session } from './session.js';

// Defined apart from DuckDB so that `vwh --help` can show them without loading the binding.
export { type DbResources, DEFAULT_DB_PATH, DEFAULT_RESOURCES } from '../core/defaults.js';

// One set of DuckDB options for every open (`Warehouse.open`, the run's shared instance, the models' build).
export { duckdbOptions } from './resources.js';

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
    /** False for a connection on the instance of `withSharedInstance`: closing it leaves the instance open. */
    private readonly ownsInstance = true,
  ) {
    this.session = Session.of(connection);
  }

  /**
   * Opens `path` (`options`: DuckDB's configuration). Inside `withSharedInstance(path, …)` it is a new connection on
   * that scope's instance instead, whose `memory_limit` and `threads` are the scope's (or else its first open's): a
   * later open does not change them under the connections already at work. `access_mode` is not set on the instance
   * (it writes; a caller that asked for read-only only reads).
   */
  static async open(path: string = DEFAULT_DB_PATH, options: Record<string, string> = {}): Promise<Database> {
    const scope = sharedScope.getStore();
    if (scope && !isMemory(path) && resolve(path) === scope.path) return Database.shared(path, options, scope);
    if (!isMemory(path)) makeFolders(dirname(resolve(path)));
    const instance = await createInstance(path, options);
    const connection = await instance.connect();
    return new Database(path, instance, connection);
  }

  /** See `open`: a connection on the scope's instance, created by the first open of the scope. */
  private static async shared(path: string, options: Record<string, string>, scope: SharedScope): Promise<Database> {
    if (!scope.instance) {
      makeFolders(dirname(resolve(path)));
      const { access_mode: _readOnly, ...writable } = options;
      scope.instance = createInstance(path, { ...writable, ...scope.options });
    }
    const instance = await scope.instance;
    return new Database(path, instance, await instance.connect(), false);
  }

  /** A second connection on the same instance (DuckDB runs queries of different connections in parallel). */
  async connect(): Promise<DuckDBConnection> {
    return this.instance.connect();
  }

  close(): void {
    this.connection.closeSync();
    if (this.ownsInstance) this.instance.closeSync();
  }
}

interface SharedScope {
  path: string;
  /** The instance's settings, over those of the first open. */
  options: Record<string, string>;
  instance?: Promise<DuckDBInstance>;
}

const sharedScope = new AsyncLocalStorage<SharedScope>();

/**
 * Runs `fn` with one DuckDB instance for the file `path`: every `Database.open(path)` inside it (in its async
 * context) is a connection on that instance, and the instance closes (checkpointing its WAL once) when `fn` ends.
 * `vwh run` uses it for its stages: opening and closing a warehouse costs tens of milliseconds each (the catalog
 * load, the checkpoint on close), which a run's ledger writes and stages paid about 17 times. The file stays locked
 * for the whole of `fn`. `options` (`memory_limit`, `threads`) bound the instance for the whole scope; without them
 * the first open's do, and no later open changes them.
 */
export async function withSharedInstance<T>(
  path: string,
  fn: () => Promise<T>,
  options: Record<string, string> = {},
): Promise<T> {
  const scope: SharedScope = { path: resolve(path), options };
  try {
    return await sharedScope.run(scope, fn);
  } finally {
    const instance = await scope.instance?.catch(() => undefined);
    if (instance) {
      await checkpointOffLoop(instance);
      instance.closeSync();
    }
  }
}

/**
 * Closing an instance checkpoints its WAL inside `closeSync`, on the event loop: the night's changes written and
 * compressed (a second or so for a small team's warehouse, more at scale: docs/lab/2026-11-code-constants.md#the-sync),
 * while a `vwh schedule --events-port` of the same process could answer no webhook delivery and log nothing. The same
 * checkpoint as a statement runs on a worker thread, so the loop keeps turning and `closeSync` finds nothing left to
 * write. When it cannot run (a read-only instance, a transaction still open), `closeSync` checkpoints as before.
 */
async function checkpointOffLoop(instance: DuckDBInstance): Promise<void> {
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await connection.run('CHECKPOINT');
  } catch {
    // closeSync checkpoints what is left
  } finally {
    connection?.closeSync();
  }
}

/** An in-memory database's path (`:memory:`, or `:memory:name`). */
export function isMemory(path: string): boolean {
  return path === ':memory:' || path.startsWith(':memory:');
}

async function createInstance(path: string, options: Record<string, string>): Promise<DuckDBInstance> {
  try {
    return await DuckDBInstance.create(path, options);
  } catch (error) {
    throw translateOpenError(error, path);
  }
}

/**
 * DuckDB's words for a file whose bytes are damaged: a block whose checksum does not match (a flipped bit, a torn
 * write), a file cut short, a header that is not DuckDB's. Not the words of a held file: its message says "lock", as
 * does the "block" of a checksum error, which was once reported as a lock.
 */
export function isDamage(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Corrupt database file|does not match stored checksum|Could not read enough bytes|not a valid DuckDB database file/i.test(
    message,
  );
}

/**
 * A damaged file as a data error (exit 1), saying what to do: a published copy is rewritten by the next vwh run; a
 * warehouse is restored from its published copy or a backup (docs/operations.md, "A damaged file").
 */
export function damagedFileError(path: string, error: unknown): VwhError {
  const message = error instanceof Error ? error.message : String(error);
  return new VwhError(
    'DB_ERROR',
    `${path} is damaged (${message.replace(/^IO Error: /, '')}). If it is the published copy, the next vwh run ` +
      'rewrites it from the warehouse. If it is the warehouse, stop vwh, copy the published copy (or a backup) over it, ' +
      'make it writable (chmod u+w) and run vwh run: it syncs the days since (docs/operations.md, "A damaged file").',
    { cause: error, details: { path, damaged: true } },
  );
}

function translateOpenError(error: unknown, path: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (isDamage(error)) return damagedFileError(path, error);
  if (/\block\b/i.test(message)) {
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
