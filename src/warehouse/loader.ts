/**
 * The bulk loader's queue and transactions: units of rows (with their state update) queued, gathered into batches
 * and landed in transactions; the encoder (`chunk-encoder.ts`) appends the rows, `partition-delete.ts` clears what
 * they replace, `wal-checkpoint.ts` checkpoints between transactions.
 */
import { groupBy } from '../core/group.js';
import { appendRows, type ColumnRow, type TargetTable, targetTable } from './chunk-encoder.js';
import type { Partition, RawRow, RunColumns, TableLoad } from './load-types.js';
import { deleteStatements } from './partition-delete.js';
import { dbError, type Session } from './session.js';
import { checkpointIfLarge } from './wal-checkpoint.js';

interface PendingUnit {
  /** The caller's array, emptied once the unit's rows are appended (they are in the transaction then). */
  loads: TableLoad[];
  rows: number;
  counts: Record<string, number>;
  run: RunColumns;
  /** The unit's own work in the transaction (its state, its run record), given the rows it inserted per table. */
  inTransaction: ((counts: Record<string, number>) => Promise<void>) | undefined;
  resolve(counts: Record<string, number>): void;
  reject(error: unknown): void;
}

/**
 * Work done once per transaction, around the units' own callbacks: `begin` before the first one, `end` after the
 * last one (a caller gathers what its units asked for and writes it in a few statements).
 */
export interface BatchWork {
  begin(): void;
  end(): Promise<void>;
}

/**
 * A batch (the units appended together, one appender and one DELETE per table) closes at this many units or rows:
 * the rows fetched and not yet appended are what the JavaScript heap holds of the landing.
 */
export const BATCH_UNITS = 64;
export const BATCH_ROWS = 10_000;
/**
 * How long a batch waits for more units before it lands (unless BATCH_ROWS are already queued, or no fetch is in
 * flight: see `expectUnits`). A backfill's requests arrive one at a time, so without the wait nearly every request was
 * a batch (and a transaction) of its own; a longer wait saves little more (measured:
 * docs/lab/2026-11-code-constants.md#the-sync).
 */
export const GATHER_MS = 300;
/**
 * A transaction goes on, batch after batch, while units keep arriving, up to this many rows or this long: DuckDB's cost
 * of a commit (the WAL written and checksummed, the rows copied from the transaction into the table, each statement of
 * the units' state) is mostly per commit, not per row, so larger transactions cost less a row (the measurements by
 * size: docs/lab/2026-11-code-constants.md#the-sync). A kill loses the open transaction (its units are fetched again by
 * the next sync): at most this long of fetching.
 */
export const TRANSACTION_ROWS = 120_000;
export const TRANSACTION_MS = 10_000;

/**
 * The bulk loader. Rows go through DuckDB's appender, as data chunks written column by column, straight into the
 * target table inside ONE transaction that deletes the partitions being re-landed, appends the rows and runs each
 * unit's state update. Never row-by-row INSERTs, and no staging table: an `INSERT … SELECT` with casts from one
 * was a large share of a backfill's CPU (docs/lab/2026-11-sync-cpu.md, second round); the appender casts the wire
 * types itself.
 *
 * Units that arrive while a batch lands, or within `gatherMs` of the first queued one, are landed together in the
 * next batch: one scan of the table deletes every re-landed partition of the batch, one appender appends its rows,
 * so the cost per unit does not grow with the table. Batches that follow each other without a pause share one
 * transaction (up to TRANSACTION_ROWS or TRANSACTION_MS); each unit's rows still commit with its own state (all of
 * the transaction or none of it).
 */
export class Loader {
  private readonly tables = new Map<string, TargetTable>();
  /** Per schema, its tables' columns (`schemaColumns`). */
  private readonly schemas = new Map<string, Map<string, ColumnRow[]>>();
  private readonly pending: PendingUnit[] = [];
  private draining = false;
  private pendingRows = 0;
  private batchWork: BatchWork | undefined;
  private wake: (() => void) | undefined;
  private wakeIdle: (() => void) | undefined;
  /** Whether units are still on their way (see `expectUnits`); undefined when nobody said. */
  private moreComing: (() => boolean) | undefined;
  private roomWaiters: Array<{ limit: number; resolve(): void }> = [];
  private committed = 0;

  /**
   * `gatherMs`: how long a batch waits for more units (see GATHER_MS); 0 lands whatever is queued at once.
   * `transaction`: how many rows and how long one transaction may hold (see TRANSACTION_ROWS).
   */
  constructor(
    private readonly session: Session,
    private readonly gatherMs = 0,
    private readonly transaction: { rows: number; ms: number } = { rows: TRANSACTION_ROWS, ms: TRANSACTION_MS },
    /** The database's WAL file and the size past which the loader checkpoints (see WAL_CHECKPOINT_BYTES in wal-checkpoint.ts). */
    private readonly wal?: { file: string; limitBytes: number },
  ) {
    // A statement queued behind the open transaction (see Session.contended) ends its wait through a lull.
    session.onContention(() => this.wakeIdle?.());
  }

  /** Sets the work every transaction does around its units' callbacks. */
  setBatchWork(work: BatchWork | undefined): void {
    this.batchWork = work;
  }

  /**
   * Queues one unit's loads; they commit with `inTransaction` (the unit's state update) atomically, in a transaction
   * with the units queued beside it. Resolves to the rows inserted per table once that transaction commits. The
   * loader takes `loads`: it empties the array once they are appended, so that a transaction's rows are not held
   * in JavaScript until its commit.
   */
  loadUnit(
    loads: TableLoad[],
    run: RunColumns,
    inTransaction?: (counts: Record<string, number>) => Promise<void>,
  ): Promise<Record<string, number>> {
    return new Promise((resolve, reject) => {
      const counts: Record<string, number> = {};
      for (const load of loads) counts[load.table] = (counts[load.table] ?? 0) + load.rows.length;
      const rows = rowCount(loads);
      this.pending.push({ loads, rows, counts, run, inTransaction, resolve, reject });
      this.pendingRows += rows;
      if (this.batchFull()) this.wake?.();
      this.wakeIdle?.();
      this.drain();
    });
  }

  /**
   * `more` tells whether units are still on their way (fetches in flight): while it holds, an open transaction waits
   * for them through a lull (up to its rows and time) rather than committing; once it does not, a batch lands without
   * waiting `gatherMs` for units that will not come. Call `nudge` when it stops holding.
   */
  expectUnits(more: (() => boolean) | undefined): void {
    this.moreComing = more;
  }

  /** Units stopped coming (see `expectUnits`): the batch lands and the transaction commits without waiting. */
  nudge(): void {
    this.wake?.();
    this.wakeIdle?.();
  }

  /** Transactions this loader has committed (its units' rows and their state, batch after batch). */
  get transactionsCommitted(): number {
    return this.committed;
  }

  /** Rows queued and not yet appended: callers hold back fetching while this is large (bounded memory). */
  get backlogRows(): number {
    return this.pendingRows;
  }

  /** Resolves once the rows queued and not yet appended are at most `limit`. */
  room(limit: number): Promise<void> {
    if (this.pendingRows <= limit) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push({ limit, resolve }));
  }

  private appended(rows: number): void {
    this.pendingRows -= rows;
    const waiting = this.roomWaiters;
    this.roomWaiters = [];
    for (const waiter of waiting) {
      if (this.pendingRows <= waiter.limit) waiter.resolve();
      else this.roomWaiters.push(waiter);
    }
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    void (async () => {
      while (this.pending.length > 0) {
        await this.landTransaction();
        await this.checkpointIfLarge();
      }
      this.draining = false;
    })();
  }

  /** Between transactions, a checkpoint once the WAL is past its limit (see `checkpointIfLarge`). */
  private async checkpointIfLarge(): Promise<void> {
    if (!this.wal) return;
    await checkpointIfLarge(this.session, this.wal);
  }

  /** A whole batch is queued: nothing more would join it. */
  private batchFull(): boolean {
    return this.pendingRows >= BATCH_ROWS || this.pending.length >= BATCH_UNITS;
  }

  /**
   * Waits up to `gatherMs` for more units to join the batch, less once a full batch is queued, not at all when no
   * more are coming (a stream that reads landed rows waits for this batch, so does the sync's end: 0.3 s each).
   */
  private async gather(): Promise<void> {
    if (this.gatherMs <= 0 || this.batchFull() || this.moreComing?.() === false) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, this.gatherMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** The next batch: the queued units in order, up to BATCH_UNITS and `maxRows` rows (always at least one unit). */
  private takeBatch(maxRows: number): PendingUnit[] {
    const batch: PendingUnit[] = [];
    let rows = 0;
    while (this.pending.length > 0 && batch.length < BATCH_UNITS) {
      const next = this.pending[0] as PendingUnit;
      if (batch.length > 0 && rows + next.rows > Math.min(BATCH_ROWS, maxRows)) break;
      batch.push(next);
      this.pending.shift();
      rows += next.rows;
    }
    return batch;
  }

  /**
   * One transaction: batch after batch while units keep coming (up to the transaction's rows and time), each
   * batch's deletes and appends per table and its units' own work (state, run record), then the caller's per
   * transaction work. Resolves (or rejects) its units when it has committed (or rolled back).
   */
  private async landTransaction(): Promise<void> {
    const units: PendingUnit[] = [];
    const tables = new Set<string>();
    let callerError: { error: unknown } | undefined;
    try {
      await this.session.transaction(async () => {
        const started = Date.now();
        let rows = 0;
        this.batchWork?.begin();
        do {
          await this.gather();
          const batch = this.takeBatch(this.transaction.rows - rows);
          units.push(...batch);
          const landed = batch.reduce((n, u) => n + u.rows, 0);
          rows += landed;
          try {
            await this.landBatch(batch, tables);
          } finally {
            this.appended(landed);
          }
          try {
            for (const unit of batch) await unit.inTransaction?.(unit.counts);
          } catch (error) {
            callerError = { error };
            throw error;
          }
          // A lull while fetches are still in flight (a budget's wait, a slow page): the transaction waits for them,
          // unless a statement waits for it (a fetch that reads the warehouse: its unit cannot come until we commit).
          while (this.pending.length === 0 && this.moreComing?.() && !this.session.contended) {
            const left = this.transaction.ms - (Date.now() - started);
            if (left <= 0 || rows >= this.transaction.rows) break;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, left);
              this.wakeIdle = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            this.wakeIdle = undefined;
          }
        } while (
          this.pending.length > 0 &&
          !this.session.contended &&
          rows < this.transaction.rows &&
          Date.now() - started < this.transaction.ms
        );
        try {
          await this.batchWork?.end();
        } catch (error) {
          callerError = { error };
          throw error;
        }
      });
    } catch (error) {
      // The caller's own failure (its state update, a test's simulated crash) passes through unchanged.
      const reason = callerError ? callerError.error : dbError(`Loading ${[...tables].join(', ')} failed`, error);
      for (const unit of units) unit.reject(reason);
      return;
    }
    this.committed++;
    for (const unit of units) unit.resolve(unit.counts);
  }

  /** A batch's re-landed partitions deleted and its rows appended, one DELETE per shape and one appender per table. */
  private async landBatch(batch: PendingUnit[], tables: Set<string>): Promise<void> {
    const byTable = new Map<string, { partitions: Partition[]; units: Array<{ rows: RawRow[]; run: RunColumns }> }>();
    for (const unit of batch) {
      for (const load of unit.loads) {
        const entry = byTable.get(load.table) ?? { partitions: [], units: [] };
        if (load.partition) entry.partitions.push(load.partition);
        entry.units.push({ rows: load.rows, run: unit.run });
        byTable.set(load.table, entry);
      }
      // The rows are in the transaction now: the caller's array lets go of them too (see `loadUnit`).
      unit.loads.length = 0;
    }
    const teamId = batch[0]?.run.team_id ?? '';
    for (const [table, { partitions, units }] of byTable) {
      tables.add(table);
      const target = await this.target(table);
      for (const statement of deleteStatements(target.table, partitions, teamId, target.types_by_name)) {
        await this.session.run(statement.sql, statement.params);
      }
      await appendRows(this.session, target, units);
    }
  }

  private async target(table: string): Promise<TargetTable> {
    const known = this.tables.get(table);
    if (known) return known;
    const [schema = '', name = ''] = table.split('.');
    // A table created since the schema was read (a test's, a migration's) is looked for again.
    const rows =
      (await this.schemaColumns(schema)).get(name) ?? (await this.schemaColumns(schema, true)).get(name) ?? [];
    if (rows.length === 0)
      throw dbError(`Loading ${table}`, new Error('table does not exist (migrations not applied?)'));
    const target = targetTable(table, schema, name, rows);
    this.tables.set(table, target);
    return target;
  }

  /**
   * The columns of every table of `schema`, read in one statement the first time a table of it is loaded: a sync
   * lands into some 25 tables, and a statement each was a visible share of a small night's sync
   * (docs/lab/2026-11-code-constants.md#the-sync). `fresh` reads it again.
   */
  private async schemaColumns(schema: string, fresh = false): Promise<Map<string, ColumnRow[]>> {
    const cached = fresh ? undefined : this.schemas.get(schema);
    if (cached) return cached;
    const rows = await this.session.all<ColumnRow & { table_name: string }>(
      'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = $1 ORDER BY table_name, ordinal_position',
      [schema],
    );
    const byTable = groupBy(
      rows,
      (r) => r.table_name,
      ({ table_name: _table, ...column }) => column,
    );
    this.schemas.set(schema, byTable);
    return byTable;
  }
}

function rowCount(loads: readonly TableLoad[]): number {
  return loads.reduce((n, l) => n + l.rows.length, 0);
}
