import { statSync } from 'node:fs';
import {
  BOOLEAN,
  DATE,
  DOUBLE,
  DuckDBDataChunk,
  type DuckDBType,
  type DuckDBValue,
  LIST,
  TIMESTAMP,
  VARCHAR,
} from '@duckdb/node-api';
import bindings from '@duckdb/node-bindings';
import { groupBy } from '../core/group.js';
import { quoteIdent } from '../core/sql.js';
import { dbError, type Session } from './session.js';

/** A row for one raw table: column → JS value (scalars, Dates, arrays and objects for list and JSON columns). */
export type RawRow = Record<string, unknown>;

/**
 * Which rows of the target a unit replaces: `team_id` and the `equals` columns (NULL-safe), and, for day-partitioned
 * tables, `between` a date column's inclusive range.
 */
export interface Partition {
  equals: Record<string, string | null | undefined>;
  between?: { column: string; from: string; to: string };
}

export interface TableLoad {
  /** `schema.table`, e.g. `raw.chats`. */
  table: string;
  /**
   * The rows this load replaces. Absent when the unit is new (the sync state knows none of its rows was landed):
   * its rows are appended without looking at the table at all.
   */
  partition?: Partition;
  rows: RawRow[];
}

/** Columns every raw row gets from the run rather than from the API. */
export interface RunColumns {
  team_id: string;
  _sync_run_id: string;
  _extracted_at: Date;
}

type WireKind = 'text' | 'number' | 'boolean' | 'date' | 'timestamp' | 'list';

interface TargetColumn {
  name: string;
  type: string;
  /** How a value is written into the chunk; the appender casts it to the column's type when the two differ. */
  wire: WireKind;
}

interface ColumnRow {
  column_name: string;
  data_type: string;
}

interface TargetTable {
  table: string;
  schema: string;
  name: string;
  columns: TargetColumn[];
  types: DuckDBType[];
  types_by_name: Record<string, string>;
}

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

const CHUNK_ROWS = 2048;
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
 * The WAL size past which the loader checkpoints between transactions. DuckDB checkpoints by itself at a commit once
 * the WAL passes `checkpoint_threshold` (16 MB), but only when it can take the checkpoint lock alone, and during a
 * sync the rate budget's saves (an upsert on a connection of their own after every request) held it at nearly every
 * commit of the loader: an agency's backfill left a WAL of gigabytes to the close, which sits on the disk beside the
 * file and is replayed at the next open after a kill. A checkpoint every 256 MB costs about what one at the end does
 * (docs/lab/2026-11-code-constants.md#the-sync; DuckDB's cost by threshold: docs/lab/2026-11-sync-cpu.md).
 */
export const WAL_CHECKPOINT_BYTES = 256 * 2 ** 20;
/**
 * The share of DuckDB's `memory_limit` the loader's checkpoint runs under; the limit is set back after it. DuckDB
 * goes past its limit while it checkpoints (those moments were a long backfill's peak RSS); a lower limit makes it
 * evict cached blocks first, which lowered the peak at the same CPU (docs/lab/2026-11-code-constants.md#the-sync).
 */
const CHECKPOINT_MEMORY_SHARE = 0.5;
/** Tries of that checkpoint when another connection's statement holds the lock, and the wait between them. */
const CHECKPOINT_TRIES = 10;
const CHECKPOINT_RETRY_MS = 25;

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
    /** The database's WAL file and the size past which the loader checkpoints (see WAL_CHECKPOINT_BYTES). */
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

  /**
   * Between transactions, a `CHECKPOINT` once the WAL is past its limit (see WAL_CHECKPOINT_BYTES). It needs the
   * checkpoint lock alone too, so it is tried again while another connection's statement holds it; a checkpoint
   * that does not happen is no failure (the WAL stays for the next try, and the close checkpoints it). Each try runs
   * under part of the memory limit (CHECKPOINT_MEMORY_SHARE).
   */
  private async checkpointIfLarge(): Promise<void> {
    if (!this.wal || walBytes(this.wal.file) < this.wal.limitBytes) return;
    for (let attempt = 0; attempt < CHECKPOINT_TRIES; attempt++) {
      // Lowered for the attempt alone: between tries other connections write at the full limit.
      const restore = await this.lowerMemoryLimit();
      try {
        await this.session.run('CHECKPOINT');
        return;
      } catch {
        // Another connection's write holds the checkpoint lock: tried again below.
      } finally {
        if (restore) await this.session.run(`SET memory_limit = '${restore}'`).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_RETRY_MS));
    }
  }

  /**
   * Halves DuckDB's `memory_limit` for a checkpoint (see CHECKPOINT_MEMORY_SHARE) and returns the value to restore;
   * undefined when it could not (the checkpoint then runs at the full limit).
   */
  private async lowerMemoryLimit(): Promise<string | undefined> {
    try {
      const current = String(await this.session.scalar(`SELECT current_setting('memory_limit')`));
      const bytes = memoryBytes(current);
      if (bytes === undefined) return undefined;
      await this.session.run(`SET memory_limit = '${Math.floor((bytes * CHECKPOINT_MEMORY_SHARE) / 1024)}KiB'`);
      return current;
    } catch {
      return undefined;
    }
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
      await this.append(target, units);
    }
  }

  /**
   * Appends the rows straight into the target table, data chunk by data chunk. No staging table and no
   * `INSERT … SELECT` with casts: the appender casts a wire vector to its column's type itself (VARCHAR → DATE,
   * JSON …; DOUBLE → BIGINT …), timestamps and lists are written in their own types.
   */
  private async append(target: TargetTable, units: Array<{ rows: RawRow[]; run: RunColumns }>): Promise<void> {
    if (units.every((u) => u.rows.length === 0)) return;
    const appender = await this.session.connection.createAppender(target.name, target.schema);
    try {
      // One chunk for the whole append, reset between fills (the appender copies what it is given): a chunk made per
      // unit allocated its vectors (2 048 rows each) for a few dozen rows.
      const chunk = DuckDBDataChunk.create(target.types);
      for (const { rows, run } of units) {
        for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
          bindings.data_chunk_reset(chunk.chunk);
          fillChunk(chunk, target, rows, start, Math.min(CHUNK_ROWS, rows.length - start), run);
          appender.appendDataChunk(chunk);
        }
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
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
    const columns = rows.map((r) => ({ name: r.column_name, type: r.data_type, wire: wireOf(r.data_type) }));
    const target: TargetTable = {
      table,
      schema,
      name,
      columns,
      types: columns.map((c) => wireDuckType(c.wire)),
      types_by_name: Object.fromEntries(columns.map((c) => [c.name, c.type])),
    };
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

const MEMORY_UNITS: Record<string, number> = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };

/** Bytes of a memory size as DuckDB's `current_setting('memory_limit')` spells it (`244.1 MiB`); undefined otherwise. */
export function memoryBytes(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * (MEMORY_UNITS[match[2] as string] as number);
}

/** The WAL file's size in bytes; 0 when there is none (no change since the last checkpoint). */
export function walBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function rowCount(loads: readonly TableLoad[]): number {
  return loads.reduce((n, l) => n + l.rows.length, 0);
}

/**
 * The DELETEs that clear a batch's re-landed partitions of one table: one statement per partition shape (the
 * same equality columns and date column), joining the table with the partitions' keys, so the table is scanned
 * once per batch rather than once per unit. The constant bounds on the date column let DuckDB skip row groups by
 * their min/max (the sync appends in date order, so old row groups fall outside a lookback's days).
 */
export function deleteStatements(
  table: string,
  partitions: readonly Partition[],
  teamId: string,
  types: Record<string, string>,
): Array<{ sql: string; params: DuckDBValue[] }> {
  const shapes = new Map<string, Partition[]>();
  for (const p of partitions) {
    const shape = `${Object.keys(p.equals).sort().join(',')}|${p.between?.column ?? ''}`;
    shapes.set(shape, [...(shapes.get(shape) ?? []), p]);
  }
  const out: Array<{ sql: string; params: DuckDBValue[] }> = [];
  for (const group of shapes.values()) {
    const first = group[0] as Partition;
    if (group.length === 1 || (Object.keys(first.equals).length === 0 && !first.between)) {
      const { where, params } = partitionPredicate(first, teamId, types);
      out.push({ sql: `DELETE FROM ${table} WHERE ${where}`, params });
      continue;
    }
    const keys = Object.keys(first.equals).sort();
    for (const key of keys) {
      if (!types[key]) throw new Error(`partition column ${key} is not a column of the target table`);
    }
    const params: DuckDBValue[] = [teamId];
    const tuples = group.map((p) => {
      const cells = keys.map((key) => {
        params.push(p.equals[key] ?? null);
        return `CAST($${params.length} AS ${types[key]})`;
      });
      if (p.between) {
        params.push(p.between.from, p.between.to);
        cells.push(`CAST($${params.length - 1} AS DATE)`, `CAST($${params.length} AS DATE)`);
      }
      return `(${cells.join(', ')})`;
    });
    const names = keys.map((_, i) => `k${i}`);
    const on = keys.map((key, i) => `t.${quoteIdent(key)} IS NOT DISTINCT FROM p.k${i}`);
    if (first.between) {
      names.push('d_from', 'd_to');
      const column = `t.${quoteIdent(first.between.column)}`;
      on.push(`${column} BETWEEN p.d_from AND p.d_to`);
      const from = group.map((p) => p.between?.from ?? '').sort()[0] ?? '';
      const to =
        group
          .map((p) => p.between?.to ?? '')
          .sort()
          .at(-1) ?? '';
      params.push(from, to);
      on.push(`${column} BETWEEN CAST($${params.length - 1} AS DATE) AND CAST($${params.length} AS DATE)`);
    }
    out.push({
      sql:
        `DELETE FROM ${table} AS t USING (VALUES ${tuples.join(', ')}) AS p(${names.join(', ')}) ` +
        `WHERE t.team_id = $1 AND ${on.join(' AND ')}`,
      params,
    });
  }
  return out;
}

/** The type a column's values are written in; the appender casts the others (VARCHAR → DATE, DOUBLE → BIGINT …). */
function wireOf(type: string): WireKind {
  if (type === 'BOOLEAN') return 'boolean';
  if (/^(DOUBLE|FLOAT|REAL|DECIMAL.*|BIGINT|INTEGER|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER)$/.test(type))
    return 'number';
  if (type === 'DATE') return 'date';
  if (type === 'TIMESTAMP') return 'timestamp';
  if (type === 'VARCHAR[]') return 'list';
  if (type.endsWith('[]')) throw new Error(`the loader writes lists of VARCHAR only, not ${type}`);
  return 'text';
}

const VARCHAR_LIST = LIST(VARCHAR);

function wireDuckType(wire: WireKind): DuckDBType {
  switch (wire) {
    case 'number':
      return DOUBLE;
    case 'boolean':
      return BOOLEAN;
    case 'date':
      return DATE;
    case 'timestamp':
      return TIMESTAMP;
    case 'list':
      return VARCHAR_LIST;
    default:
      return VARCHAR;
  }
}

/**
 * Writes rows [start, start + count) into the chunk's vectors column by column: numbers, booleans and timestamps
 * through one scratch buffer copied into the vector, strings one call each, lists as their entries and a child vector
 * of strings, NULLs as cleared bits of a validity mask. The value wrappers of `DuckDBDataChunk.setColumns` cost a
 * column array, a cache entry and BigInt arithmetic per value: at a few hundred rows per request, most of the sync's
 * allocation.
 */
function fillChunk(
  chunk: DuckDBDataChunk,
  target: TargetTable,
  rows: readonly RawRow[],
  start: number,
  count: number,
  run: RunColumns,
): void {
  bindings.data_chunk_set_size(chunk.chunk, count);
  const maskBytes = Math.ceil(count / 64) * 8;
  const columns = target.columns;
  for (let c = 0; c < columns.length; c++) {
    const column = columns[c] as TargetColumn;
    const vector = bindings.data_chunk_get_vector(chunk.chunk, c);
    let nulls = false;
    const setNull = (i: number) => {
      if (!nulls) {
        nulls = true;
        VALIDITY.fill(0xff, 0, maskBytes);
      }
      VALIDITY[i >> 3] = (VALIDITY[i >> 3] as number) & ~(1 << (i & 7));
    };
    // A run column has one value for the whole unit: converted once.
    const fromRun = column.name in run;
    const constant = fromRun ? toWire(target, column, run[column.name as keyof RunColumns]) : undefined;
    const valueAt = (i: number) =>
      fromRun ? constant : toWire(target, column, (rows[start + i] as RawRow)[column.name]);
    switch (column.wire) {
      case 'text': {
        // The same text in every row (the run's columns, a unit's partition keys): one constant vector, not a string
        // copied per row.
        const same = fromRun ? constant : sameText(rows, start, count, column.name);
        if (typeof same === 'string') {
          bindings.vector_reference_value(vector, bindings.create_varchar(same));
          break;
        }
        for (let i = 0; i < count; i++) {
          const value = valueAt(i);
          if (value === null) setNull(i);
          else bindings.vector_assign_string_element(vector, i, value as string);
        }
        break;
      }
      case 'list':
        fillList(vector, count, valueAt as (i: number) => Array<string | null> | null, setNull);
        break;
      default: {
        for (let i = 0; i < count; i++) {
          const value = valueAt(i);
          if (value === null) setNull(i);
          else if (column.wire === 'number') DOUBLES[i] = value as number;
          else if (column.wire === 'boolean') BYTES[i] = value ? 1 : 0;
          else if (column.wire === 'date') INTS[i] = value as number;
          else {
            // int64 microseconds, little-endian, as two 32-bit halves (exact up to 2^53).
            const micros = value as number;
            const high = Math.floor(micros / 2 ** 32);
            WORDS[2 * i] = micros - high * 2 ** 32;
            WORDS[2 * i + 1] = high;
          }
        }
        const width = column.wire === 'boolean' ? 1 : column.wire === 'date' ? 4 : 8;
        bindings.copy_data_to_vector(vector, 0, SCRATCH, 0, count * width);
      }
    }
    if (nulls) {
      bindings.vector_ensure_validity_writable(vector);
      bindings.copy_data_to_vector_validity(vector, 0, VALIDITY.buffer, 0, maskBytes);
    }
  }
}

/** A VARCHAR[] column: each row's (offset, length) entry, the child vector's strings and their NULLs. */
function fillList(
  vector: bindings.Vector,
  count: number,
  valueAt: (i: number) => Array<string | null> | null,
  setNull: (i: number) => void,
): void {
  const lists: Array<Array<string | null> | null> = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    const list = valueAt(i);
    lists.push(list);
    if (list === null) setNull(i);
    else total += list.length;
  }
  bindings.list_vector_reserve(vector, total);
  bindings.list_vector_set_size(vector, total);
  const child = bindings.list_vector_get_child(vector);
  const entries = new BigUint64Array(count * 2);
  let offset = 0;
  let childValidity: Uint8Array<ArrayBuffer> | undefined;
  for (let i = 0; i < count; i++) {
    const list = lists[i];
    entries[2 * i] = BigInt(offset);
    entries[2 * i + 1] = BigInt(list?.length ?? 0);
    for (const item of list ?? []) {
      if (item === null) {
        childValidity ??= new Uint8Array(Math.ceil(total / 64) * 8).fill(0xff);
        childValidity[offset >> 3] = (childValidity[offset >> 3] as number) & ~(1 << (offset & 7));
      } else bindings.vector_assign_string_element(child, offset, item);
      offset++;
    }
  }
  bindings.copy_data_to_vector(vector, 0, entries.buffer, 0, entries.byteLength);
  if (childValidity) {
    bindings.vector_ensure_validity_writable(child);
    bindings.copy_data_to_vector_validity(child, 0, childValidity.buffer, 0, childValidity.byteLength);
  }
}

/** Scratch memory for one column of a chunk (doubles, int64s or booleans) and its validity mask, copied into DuckDB's. */
const SCRATCH = new ArrayBuffer(CHUNK_ROWS * 8);
const DOUBLES = new Float64Array(SCRATCH);
const WORDS = new Uint32Array(SCRATCH);
const INTS = new Int32Array(SCRATCH);
const BYTES = new Uint8Array(SCRATCH);
const VALIDITY = new Uint8Array(CHUNK_ROWS / 8);

type Wire = string | number | boolean | Array<string | null> | null;

/** A JS value in its column's wire type: a string, a double, a boolean, microseconds, a list of strings or null. */
function toWire(target: TargetTable, column: TargetColumn, value: unknown): Wire {
  if (value === null || value === undefined) return null;
  switch (column.wire) {
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return Boolean(value);
    case 'date': {
      const days = value instanceof Date ? Math.floor(value.getTime() / 86_400_000) : dayNumber(String(value));
      if (days === undefined || Number.isNaN(days))
        throw new Error(`${target.table}.${column.name}: ${JSON.stringify(value)} is not a date (YYYY-MM-DD)`);
      return days;
    }
    case 'timestamp': {
      const micros = value instanceof Date ? value.getTime() * 1000 : timestampMicros(String(value));
      if (micros === undefined || Number.isNaN(micros))
        throw new Error(`${target.table}.${column.name}: ${JSON.stringify(value)} is not an ISO 8601 timestamp`);
      return micros;
    }
    case 'list':
      return listOf(target, column, typeof value === 'string' ? JSON.parse(value) : value);
    default:
      if (typeof value === 'string') return value;
      if (value instanceof Date) return value.toISOString();
      if (typeof value === 'object') return JSON.stringify(value);
      return String(value);
  }
}

/** A VARCHAR[] value as `CAST(CAST(json AS JSON) AS VARCHAR[])` gives it: strings as they are, others as JSON text. */
function listOf(target: TargetTable, column: TargetColumn, value: unknown): Array<string | null> {
  if (!Array.isArray(value)) throw new Error(`${target.table}.${column.name}: ${JSON.stringify(value)} is not a list`);
  return value.map((item) =>
    item === null || item === undefined ? null : typeof item === 'string' ? item : JSON.stringify(item),
  );
}

/**
 * The text of `column` when every row of [start, start + count) has the same string there (compared by identity
 * first: a unit's rows share their key's strings), undefined otherwise.
 */
function sameText(rows: readonly RawRow[], start: number, count: number, column: string): string | undefined {
  const first = (rows[start] as RawRow)[column];
  if (typeof first !== 'string' || count < 2) return undefined;
  for (let i = start + 1; i < start + count; i++) if ((rows[i] as RawRow)[column] !== first) return undefined;
  return first;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Days since 1970-01-01 of the `YYYY-MM-DD` texts seen, each computed once (a backfill lands a few thousand days). */
const dayNumbers = new Map<string, number>();

/**
 * A `YYYY-MM-DD` calendar day as days since 1970-01-01 (proleptic Gregorian, what DuckDB's DATE holds); undefined for
 * any other text or a day that does not exist (2025-02-30).
 */
export function dayNumber(text: string): number | undefined {
  // A unit's rows come in day order: most texts are the last one's (no hash of a fresh string).
  if (text === lastDay.text) return lastDay.days;
  const known = dayNumbers.get(text) ?? parseDay(text);
  if (known !== undefined) {
    lastDay.text = text;
    lastDay.days = known;
  }
  return known;
}

const lastDay = { text: '', days: 0 };

/** `dayNumber` without its caches. */
function parseDay(text: string): number | undefined {
  const m = DAY.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const length = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > length) return undefined;
  // Days from civil (H. Hinnant): the year starts in March, so the leap day is the year's last.
  const yy = month <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  if (dayNumbers.size >= 100_000) dayNumbers.clear();
  dayNumbers.set(text, days);
  return days;
}

const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

/**
 * An ISO 8601 timestamp (a bare day, a UTC `Z`, an offset or no zone) as microseconds since the epoch in UTC, what
 * `CAST(CAST(text AS TIMESTAMPTZ) AS TIMESTAMP)` gives in a UTC session (digits past the microsecond dropped);
 * undefined for any other text.
 */
export function timestampMicros(text: string): number | undefined {
  const m = ISO_TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', , sign, oh = '0', om = '0'] = m;
  const month = Number(mo);
  const day = Number(d);
  const ms = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(sec));
  // Date.UTC rolls 2025-02-30 over to March; DuckDB rejects it.
  const check = new Date(ms);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const fraction = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  return (ms - offset) * 1000 + fraction;
}

/** `team_id = $1 AND a IS NOT DISTINCT FROM $2 … [AND col BETWEEN $n AND $n+1]`. */
export function partitionPredicate(
  partition: Partition,
  teamId: string,
  types: Record<string, string> = {},
): { where: string; params: DuckDBValue[] } {
  const params: DuckDBValue[] = [teamId];
  const parts = ['team_id = $1'];
  for (const [column, value] of Object.entries(partition.equals)) {
    params.push(value ?? null);
    const type = types[column];
    if (!type) throw new Error(`partition column ${column} is not a column of the target table`);
    parts.push(`${quoteIdent(column)} IS NOT DISTINCT FROM CAST($${params.length} AS ${type})`);
  }
  if (partition.between) {
    params.push(partition.between.from, partition.between.to);
    parts.push(
      `${quoteIdent(partition.between.column)} BETWEEN CAST($${params.length - 1} AS DATE) AND CAST($${params.length} AS DATE)`,
    );
  }
  return { where: parts.join(' AND '), params };
}
