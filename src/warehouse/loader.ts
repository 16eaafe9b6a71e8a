import {
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  type DuckDBType,
  type DuckDBValue,
  LIST,
  TIMESTAMP,
  VARCHAR,
} from '@duckdb/node-api';
import bindings from '@duckdb/node-bindings';
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

type WireKind = 'text' | 'number' | 'boolean' | 'timestamp' | 'list';

interface TargetColumn {
  name: string;
  type: string;
  /** How a value is written into the chunk; the appender casts it to the column's type when the two differ. */
  wire: WireKind;
}

interface TargetTable {
  table: string;
  schema: string;
  name: string;
  columns: TargetColumn[];
  types: DuckDBType[];
  types_by_name: Record<string, string>;
}

/** A table's rows of one batch. */
interface TableBatch {
  partitions: Partition[];
  target: TargetTable;
  units: Array<{ rows: RawRow[]; run: RunColumns }>;
}

interface PendingUnit {
  loads: TableLoad[];
  run: RunColumns;
  /** The unit's own work in the transaction (its state, its run record), given the rows it inserted per table. */
  inTransaction: ((counts: Record<string, number>) => Promise<void>) | undefined;
  resolve(counts: Record<string, number>): void;
  reject(error: unknown): void;
}

/**
 * Work done once per batch inside its transaction, around the units' own callbacks: `begin` before the first one,
 * `end` after the last one (a caller gathers what its units asked for and writes it in a few statements).
 */
export interface BatchWork {
  begin(): void;
  end(): Promise<void>;
}

const CHUNK_ROWS = 2048;
/**
 * A batch closes at this many units or rows. A batch is held twice while it lands (the JS rows and the transaction's
 * uncommitted copy): at 20 000 rows (chats with their answers' full text) DuckDB's in-memory tables reached 253 MB in a
 * 365-day backfill; at 10 000, with a 256MB memory_limit, DuckDB peaked at 134 MB.
 */
export const BATCH_UNITS = 64;
export const BATCH_ROWS = 10_000;
/**
 * How long a batch waits for more units before it lands (unless BATCH_ROWS are already queued). Every commit writes
 * and checksums the WAL and runs each unit's state statements; a backfill's requests arrive one at a time, so without
 * the wait nearly every request was a transaction of its own. 2 × 50 × 120 (1 137 requests): 13.0 s of sync CPU with
 * no wait, 8.8 s at 300 ms, 8.6 s at 1 s.
 */
export const GATHER_MS = 300;

/**
 * The bulk loader. Rows go through DuckDB's appender, as data chunks written column by column, straight into the
 * target table inside ONE transaction that deletes the partitions being re-landed, appends the rows and runs each
 * unit's state update. Never row-by-row INSERTs, and no staging table: an `INSERT … SELECT` with casts from one
 * cost a backfill about a quarter of its CPU (on DuckDB's threads); the appender casts the wire types itself.
 *
 * Units that arrive while a transaction runs, or within `gatherMs` of the first queued one, are landed together in the
 * next transaction (a batch): one scan of the table deletes every re-landed partition of the batch, one appender
 * appends its rows, so the cost per unit does not grow with the table. Each unit's rows still commit with its own
 * state (all of the batch or none of it).
 */
export class Loader {
  private readonly tables = new Map<string, TargetTable>();
  private readonly pending: PendingUnit[] = [];
  private draining = false;
  private pendingRows = 0;
  private batchWork: BatchWork | undefined;
  private wake: (() => void) | undefined;

  /** `gatherMs`: how long a batch waits for more units (see GATHER_MS); 0 lands whatever is queued at once. */
  constructor(
    private readonly session: Session,
    private readonly gatherMs = 0,
  ) {}

  /** Sets the work every batch's transaction does around its units' callbacks. */
  setBatchWork(work: BatchWork | undefined): void {
    this.batchWork = work;
  }

  /**
   * Queues one unit's loads; they commit with `inTransaction` (the unit's state update) atomically, in a batch with
   * the units queued beside it. Resolves to the rows inserted per table.
   */
  loadUnit(
    loads: TableLoad[],
    run: RunColumns,
    inTransaction?: (counts: Record<string, number>) => Promise<void>,
  ): Promise<Record<string, number>> {
    return new Promise((resolve, reject) => {
      this.pending.push({ loads, run, inTransaction, resolve, reject });
      this.pendingRows += rowCount(loads);
      if (this.batchFull()) this.wake?.();
      this.drain();
    });
  }

  /** Rows queued and not yet committed: callers hold back fetching while this is large (bounded memory). */
  get backlogRows(): number {
    return this.pendingRows;
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    void (async () => {
      while (this.pending.length > 0) {
        await this.gather();
        const batch = this.takeBatch();
        try {
          const counts = await this.loadBatch(batch);
          for (const [i, unit] of batch.entries()) unit.resolve(counts[i] ?? {});
        } catch (error) {
          for (const unit of batch) unit.reject(error);
        } finally {
          for (const unit of batch) this.pendingRows -= rowCount(unit.loads);
        }
      }
      this.draining = false;
    })();
  }

  /** A whole batch is queued: nothing more would join it. */
  private batchFull(): boolean {
    return this.pendingRows >= BATCH_ROWS || this.pending.length >= BATCH_UNITS;
  }

  /** Waits up to `gatherMs` for more units to join the batch, less once a full batch is queued. */
  private async gather(): Promise<void> {
    if (this.gatherMs <= 0 || this.batchFull()) return;
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

  private takeBatch(): PendingUnit[] {
    const batch: PendingUnit[] = [];
    let rows = 0;
    while (this.pending.length > 0 && batch.length < BATCH_UNITS) {
      const next = this.pending[0] as PendingUnit;
      const n = rowCount(next.loads);
      if (batch.length > 0 && rows + n > BATCH_ROWS) break;
      batch.push(next);
      this.pending.shift();
      rows += n;
    }
    return batch;
  }

  private async loadBatch(batch: PendingUnit[]): Promise<Array<Record<string, number>>> {
    // Every table of the batch gets one DELETE of its re-landed partitions and one appender.
    const byTable = new Map<string, { partitions: Partition[]; units: Array<{ rows: RawRow[]; run: RunColumns }> }>();
    const counts: Array<Record<string, number>> = batch.map(() => ({}));
    batch.forEach((unit, i) => {
      for (const load of unit.loads) {
        const entry = byTable.get(load.table) ?? { partitions: [], units: [] };
        if (load.partition) entry.partitions.push(load.partition);
        entry.units.push({ rows: load.rows, run: unit.run });
        byTable.set(load.table, entry);
        const unitCounts = counts[i] as Record<string, number>;
        unitCounts[load.table] = (unitCounts[load.table] ?? 0) + load.rows.length;
      }
    });
    const staged: TableBatch[] = [];
    for (const [table, entry] of byTable) staged.push({ ...entry, target: await this.target(table) });
    await this.commit(batch, counts, staged, [...byTable.keys()]);
    return counts;
  }

  /**
   * One transaction: the batch's deletes and appends per table, then its units' own work (state, run record). The
   * appender writes into the transaction that is open on the connection: a rollback takes its rows back too.
   */
  private async commit(
    batch: PendingUnit[],
    counts: Array<Record<string, number>>,
    staged: readonly TableBatch[],
    tables: readonly string[],
  ): Promise<void> {
    const teamId = batch[0]?.run.team_id ?? '';
    let callerError: { error: unknown } | undefined;
    try {
      await this.session.transaction(async () => {
        for (const { partitions, target, units } of staged) {
          for (const statement of deleteStatements(target.table, partitions, teamId, target.types_by_name)) {
            await this.session.run(statement.sql, statement.params);
          }
          await this.append(target, units);
        }
        try {
          this.batchWork?.begin();
          for (const [i, unit] of batch.entries()) await unit.inTransaction?.(counts[i] ?? {});
          await this.batchWork?.end();
        } catch (error) {
          callerError = { error };
          throw error;
        }
      });
    } catch (error) {
      // The caller's own failure (its state update, a test's simulated crash) passes through unchanged.
      if (callerError) throw callerError.error;
      throw dbError(`Loading ${tables.join(', ')} failed`, error);
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
      for (const { rows, run } of units) {
        for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
          const chunk = DuckDBDataChunk.create(target.types);
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
    const rows = await this.session.all<{ column_name: string; data_type: string }>(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
      [schema, name],
    );
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
      case 'text':
        for (let i = 0; i < count; i++) {
          const value = valueAt(i);
          if (value === null) setNull(i);
          else bindings.vector_assign_string_element(vector, i, value as string);
        }
        break;
      case 'list':
        fillList(vector, count, valueAt as (i: number) => Array<string | null> | null, setNull);
        break;
      default: {
        for (let i = 0; i < count; i++) {
          const value = valueAt(i);
          if (value === null) setNull(i);
          else if (column.wire === 'number') DOUBLES[i] = value as number;
          else if (column.wire === 'boolean') BYTES[i] = value ? 1 : 0;
          else {
            // int64 microseconds, little-endian, as two 32-bit halves (exact up to 2^53).
            const micros = value as number;
            const high = Math.floor(micros / 2 ** 32);
            WORDS[2 * i] = micros - high * 2 ** 32;
            WORDS[2 * i + 1] = high;
          }
        }
        const width = column.wire === 'boolean' ? 1 : 8;
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
