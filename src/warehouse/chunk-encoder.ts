/**
 * The DuckDB chunk encoder: a raw table's rows written into the appender's data chunks column by column, each value in
 * its column's wire type (the appender casts it to the column's own type).
 */
import type { DuckDBType } from '@duckdb/node-api';
import type { Vector } from '@duckdb/node-bindings';
import { BOOLEAN, bindings, DATE, DOUBLE, DuckDBDataChunk, LIST, TIMESTAMP, VARCHAR } from './duckdb-api.js';
import type { RawRow, RunColumns } from './load-types.js';
import type { Session } from './session.js';
import { timestampMicros, wireDayNumber } from './wire-dates.js';

type WireKind = 'text' | 'number' | 'boolean' | 'date' | 'timestamp' | 'list';

interface TargetColumn {
  name: string;
  type: string;
  /** How a value is written into the chunk; the appender casts it to the column's type when the two differ. */
  wire: WireKind;
}

/** A column of a table as information_schema.columns gives it. */
export interface ColumnRow {
  column_name: string;
  data_type: string;
}

/** A target table of the loader: its columns, their wire types and their DuckDB types by name. */
export interface TargetTable {
  table: string;
  schema: string;
  name: string;
  columns: TargetColumn[];
  types: DuckDBType[];
  types_by_name: Record<string, string>;
}

const CHUNK_ROWS = 2048;

/** `schema.name`'s columns (in their order) as the encoder writes them. */
export function targetTable(table: string, schema: string, name: string, rows: readonly ColumnRow[]): TargetTable {
  const columns = rows.map((r) => ({ name: r.column_name, type: r.data_type, wire: wireOf(r.data_type) }));
  return {
    table,
    schema,
    name,
    columns,
    types: columns.map((c) => wireDuckType(c.wire)),
    types_by_name: Object.fromEntries(columns.map((c) => [c.name, c.type])),
  };
}

/**
 * Appends the rows straight into the target table, data chunk by data chunk. No staging table and no
 * `INSERT … SELECT` with casts: the appender casts a wire vector to its column's type itself (VARCHAR → DATE,
 * JSON …; DOUBLE → BIGINT …), timestamps and lists are written in their own types.
 */
export async function appendRows(
  session: Session,
  target: TargetTable,
  units: Array<{ rows: RawRow[]; run: RunColumns }>,
): Promise<void> {
  if (units.every((u) => u.rows.length === 0)) return;
  const appender = await session.connection.createAppender(target.name, target.schema);
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
  vector: Vector,
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
      const days = value instanceof Date ? Math.floor(value.getTime() / 86_400_000) : wireDayNumber(String(value));
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
