import { statSync } from 'node:fs';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { Kysely } from 'kysely';
import { memoryLimitFor } from '../core/defaults.js';
import { DuckDBBudgetStore } from './budget-store.js';
import { Database, type DbResources, DEFAULT_DB_PATH, DEFAULT_RESOURCES, duckdbOptions, isMemory } from './duckdb.js';
import { type OpsDatabase, opsDb } from './kysely/index.js';
import { GATHER_MS, Loader } from './loader.js';
import { migrate } from './migrate.js';
import { RunStore } from './run-store.js';
import { Session } from './session.js';
import { StateStore } from './state-store.js';
import { WAL_CHECKPOINT_BYTES } from './wal-checkpoint.js';

/** What one writer (one team's sync) needs: its own connection, the loader, and the ops stores over it. */
export interface WarehouseSession {
  session: Session;
  ops: Kysely<OpsDatabase>;
  loader: Loader;
  state: StateStore;
  runs: RunStore;
  budget: DuckDBBudgetStore;
  close(): void;
}

/** DuckDB instances whose file `Warehouse.open` has migrated. */
const MIGRATED = new WeakSet<DuckDBInstance>();

/**
 * The warehouse file, migrated on open. Each parallel writer takes its own `session()` (a DuckDB connection of
 * the same instance), so one team's transaction never interleaves with another's.
 */
export class Warehouse {
  private constructor(readonly database: Database) {}

  /**
   * Opens (creating if needed) and migrates. A locked file throws DB_LOCKED (exit 4). `resources` bounds DuckDB's
   * buffer pool and threads (defaults suit a cron box: see `DEFAULT_RESOURCES`; a big file gets more memory, see
   * `memoryLimitFor`).
   */
  static async open(path: string = DEFAULT_DB_PATH, resources: Partial<DbResources> = {}): Promise<Warehouse> {
    const sized = { ...DEFAULT_RESOURCES, memoryLimit: memoryLimitFor(fileBytes(path)) };
    const database = await Database.open(path, duckdbOptions({ ...sized, ...resources }));
    const warehouse = new Warehouse(database);
    await database.session.inUtc();
    // An instance is migrated once: inside `withSharedInstance` a run opens the warehouse for each stage and ledger
    // write (about 18 times), and each migration check was 3 statements and a read of sql/.
    if (!MIGRATED.has(database.instance)) {
      await migrate(database.session);
      MIGRATED.add(database.instance);
    }
    return warehouse;
  }

  get path(): string {
    return this.database.path;
  }

  async session(): Promise<WarehouseSession> {
    const session = await Session.create(await this.database.connect());
    // The budget saves its window after every request: on a connection of its own, those small commits never wait
    // behind (or hold up) a unit's load, which the session serializes. Opened when the budget is first used (a sync):
    // the run's other sessions (its ledger writes, stages) never use it.
    let budgetSession: Session | undefined;
    let closed = false;
    const ops = opsDb(session);
    return {
      session,
      ops,
      loader: new Loader(
        session,
        GATHER_MS,
        undefined,
        isMemory(this.path) ? undefined : { file: `${this.path}.wal`, limitBytes: WAL_CHECKPOINT_BYTES },
      ),
      state: new StateStore(ops),
      runs: new RunStore(ops),
      // The store calls this once, when it is first used.
      budget: new DuckDBBudgetStore(async () => {
        const opened = await Session.create(await this.database.connect());
        // Closed while it opened: nothing will use it.
        if (closed) opened.close();
        else budgetSession = opened;
        return opsDb(opened);
      }),
      close: () => {
        closed = true;
        budgetSession?.close();
        session.close();
      },
    };
  }

  close(): void {
    this.database.close();
  }
}

/** The warehouse file's size with its WAL (0 for `:memory:` or a file not created yet). */
function fileBytes(path: string): number {
  if (isMemory(path)) return 0;
  const size = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  return size(path) + size(`${path}.wal`);
}
