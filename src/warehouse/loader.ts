import { BOOLEAN, DOUBLE, DuckDBDataChunk, type DuckDBType, type DuckDBValue, VARCHAR } from '@duckdb/node-api';
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

type WireKind = 'text' | 'number' | 'boolean';

interface TargetColumn {
  name: string;
  type: string;
  wire: WireKind;
  /** SQL expression turning the staged value into the target type. */
  cast: string;
}

interface TargetTable {
  table: string;
  staging: string;
  /** `CREATE OR REPLACE TEMP TABLE …` of the staging table (made anew for each batch, dropped after it). */
  stagingDdl: string;
  columns: TargetColumn[];
  types: DuckDBType[];
  types_by_name: Record<string, string>;
}

/** A table's rows of one batch, in its staging table. */
interface Staged {
  partitions: Partition[];
  target: TargetTable;
  rows: number;
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
 * A batch closes at this many units or rows. A batch is held three times while it lands (the JS rows, the staging
 * table, the INSERT's uncommitted copy): at 20 000 rows (chats with their answers' full text) DuckDB's in-memory
 * tables reached 253 MB in a 365-day backfill; at 10 000, with a 256MB memory_limit, DuckDB peaked at 134 MB.
 */
export const BATCH_UNITS = 64;
export const BATCH_ROWS = 10_000;

/**
 * The bulk loader. Rows go through DuckDB's appender, as data chunks, into a TEMP staging table with the target's
 * columns in "wire" types (text, double, boolean); then ONE transaction deletes the partitions being re-landed,
 * inserts the staged rows with casts to the target types, and runs each unit's state update. Never row-by-row
 * INSERTs.
 *
 * Units that arrive while a transaction runs are landed together in the next one (a batch): one scan of the table
 * deletes every re-landed partition of the batch, one INSERT appends its rows, so the cost per unit does not grow
 * with the table. Each unit's rows still commit with its own state (all of the batch or none of it).
 */
export class Loader {
  private readonly tables = new Map<string, TargetTable>();
  private readonly pending: PendingUnit[] = [];
  private draining = false;
  private pendingRows = 0;
  private batchWork: BatchWork | undefined;

  constructor(private readonly session: Session) {}

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
    // Every table of the batch gets one staging pass, one DELETE of its re-landed partitions, one INSERT.
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
    const staged: Staged[] = [];
    try {
      for (const [table, entry] of byTable) {
        const target = await this.target(table);
        staged.push({ partitions: entry.partitions, target, rows: entry.units.reduce((n, u) => n + u.rows.length, 0) });
        await this.stage(target, entry.units);
      }
      await this.commit(batch, counts, staged, [...byTable.keys()]);
    } finally {
      // A temp table never gives back the memory of its deleted rows (DuckDB keeps them until the table goes):
      // emptied and refilled per batch, the staging tables grew with the history (103 MB after a 30-day backfill of
      // 10 × 50 prompts). Made anew for each batch and dropped after it, they hold one batch at most.
      for (const { target } of staged) await this.session.run(`DROP TABLE IF EXISTS ${target.staging}`).catch(() => 0);
    }
    return counts;
  }

  /** One transaction: the batch's deletes and inserts per table, then its units' own work (state, run record). */
  private async commit(
    batch: PendingUnit[],
    counts: Array<Record<string, number>>,
    staged: readonly Staged[],
    tables: readonly string[],
  ): Promise<void> {
    const teamId = batch[0]?.run.team_id ?? '';
    let callerError: { error: unknown } | undefined;
    try {
      await this.session.transaction(async () => {
        for (const { partitions, target, rows } of staged) {
          for (const statement of deleteStatements(target.table, partitions, teamId, target.types_by_name)) {
            await this.session.run(statement.sql, statement.params);
          }
          if (rows === 0) continue;
          const names = target.columns.map((c) => quoteIdent(c.name)).join(', ');
          const casts = target.columns.map((c) => c.cast).join(', ');
          await this.session.run(`INSERT INTO ${target.table} (${names}) SELECT ${casts} FROM ${target.staging}`);
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

  private async stage(target: TargetTable, units: Array<{ rows: RawRow[]; run: RunColumns }>): Promise<void> {
    await this.session.run(target.stagingDdl);
    if (units.every((u) => u.rows.length === 0)) return;
    await this.session.exclusive(async () => {
      const appender = await this.session.connection.createAppender(
        target.staging.replace(/^temp\.main\./, ''),
        'main',
        'temp',
      );
      try {
        for (const { rows, run } of units) {
          for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
            const chunk = DuckDBDataChunk.create(target.types);
            fillChunk(chunk, target.columns, rows, start, Math.min(CHUNK_ROWS, rows.length - start), run);
            appender.appendDataChunk(chunk);
          }
        }
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
    });
  }

  private async target(table: string): Promise<TargetTable> {
    const known = this.tables.get(table);
    if (known) return known;
    const [schema, name] = table.split('.');
    const rows = await this.session.all<{ column_name: string; data_type: string }>(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
      [schema ?? '', name ?? ''],
    );
    if (rows.length === 0)
      throw dbError(`Loading ${table}`, new Error('table does not exist (migrations not applied?)'));
    const columns = rows.map((r) => targetColumn(r.column_name, r.data_type));
    const staging = `temp.main.stg_${schema}_${name}`;
    const ddl = columns.map((c) => `${quoteIdent(c.name)} ${wireSqlType(c.wire)}`).join(', ');
    const target: TargetTable = {
      table,
      staging,
      stagingDdl: `CREATE OR REPLACE TEMP TABLE stg_${schema}_${name} (${ddl})`,
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

function targetColumn(name: string, type: string): TargetColumn {
  const ident = quoteIdent(name);
  if (type === 'BOOLEAN') return { name, type, wire: 'boolean', cast: ident };
  if (/^(DOUBLE|FLOAT|REAL|DECIMAL.*)$/.test(type))
    return { name, type, wire: 'number', cast: `CAST(${ident} AS ${type})` };
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER)$/.test(type)) {
    return { name, type, wire: 'number', cast: `CAST(${ident} AS ${type})` };
  }
  if (type === 'VARCHAR') return { name, type, wire: 'text', cast: ident };
  if (type === 'TIMESTAMP')
    return { name, type, wire: 'text', cast: `CAST(CAST(${ident} AS TIMESTAMPTZ) AS TIMESTAMP)` };
  if (type === 'JSON') return { name, type, wire: 'text', cast: `CAST(${ident} AS JSON)` };
  if (type.endsWith('[]')) return { name, type, wire: 'text', cast: `CAST(CAST(${ident} AS JSON) AS ${type})` };
  return { name, type, wire: 'text', cast: `CAST(${ident} AS ${type})` };
}

function wireSqlType(wire: WireKind): string {
  return wire === 'number' ? 'DOUBLE' : wire === 'boolean' ? 'BOOLEAN' : 'VARCHAR';
}

function wireDuckType(wire: WireKind): DuckDBType {
  return wire === 'number' ? DOUBLE : wire === 'boolean' ? BOOLEAN : VARCHAR;
}

/**
 * Writes rows [start, start + count) into the chunk's vectors column by column: numbers and booleans through one
 * scratch buffer copied into the vector, strings one call each, NULLs as cleared bits of a validity mask. The value wrappers of
 * `DuckDBDataChunk.setColumns` cost a column array, a cache entry and BigInt arithmetic per value: at a few hundred
 * rows per request, most of the sync's allocation.
 */
function fillChunk(
  chunk: DuckDBDataChunk,
  columns: readonly TargetColumn[],
  rows: readonly RawRow[],
  start: number,
  count: number,
  run: RunColumns,
): void {
  bindings.data_chunk_set_size(chunk.chunk, count);
  const maskBytes = Math.ceil(count / 64) * 8;
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
    const constant = fromRun ? toWire(column, run[column.name as keyof RunColumns]) : undefined;
    const valueAt = (i: number) => (fromRun ? constant : toWire(column, (rows[start + i] as RawRow)[column.name]));
    if (column.wire === 'text') {
      for (let i = 0; i < count; i++) {
        const value = valueAt(i);
        if (value === null) setNull(i);
        else bindings.vector_assign_string_element(vector, i, value as string);
      }
    } else {
      const number = column.wire === 'number';
      for (let i = 0; i < count; i++) {
        const value = valueAt(i);
        if (value === null) setNull(i);
        else if (number) DOUBLES[i] = value as number;
        else BYTES[i] = value ? 1 : 0;
      }
      bindings.copy_data_to_vector(vector, 0, SCRATCH, 0, number ? count * 8 : count);
    }
    if (nulls) {
      bindings.vector_ensure_validity_writable(vector);
      bindings.copy_data_to_vector_validity(vector, 0, VALIDITY.buffer, 0, maskBytes);
    }
  }
}

/** Scratch memory for one column of a chunk (doubles or booleans) and its validity mask, copied into DuckDB's. */
const SCRATCH = new ArrayBuffer(CHUNK_ROWS * 8);
const DOUBLES = new Float64Array(SCRATCH);
const BYTES = new Uint8Array(SCRATCH);
const VALIDITY = new Uint8Array(CHUNK_ROWS / 8);

/** A JS value in its column's wire type: a string, a double, a boolean or null. */
function toWire(column: TargetColumn, value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  switch (column.wire) {
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return Boolean(value);
    default:
      if (typeof value === 'string') return value;
      if (value instanceof Date) return value.toISOString();
      if (typeof value === 'object') return JSON.stringify(value);
      return String(value);
  }
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
