/**
 * DuckDB columns as Arrow vectors: the Arrow type of each portable column type, the select expression that feeds
 * it, and the conversion of one chunk of JS values into a vector.
 */
import {
  Binary,
  Bool,
  type DataType,
  DateDay,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  List,
  makeData,
  makeVector,
  TimestampMicrosecond,
  Utf8,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import type { PortableColumn } from './portable-types.js';

export interface ArrowColumn {
  name: string;
  type: DataType;
  /** The select expression (aliased) that yields the values this column's converter expects. */
  expr: string;
  toVector(values: readonly unknown[]): Vector;
}

const SCALARS: Record<string, () => DataType> = {
  BOOLEAN: () => new Bool(),
  TINYINT: () => new Int8(),
  SMALLINT: () => new Int16(),
  INTEGER: () => new Int32(),
  BIGINT: () => new Int64(),
  FLOAT: () => new Float32(),
  DOUBLE: () => new Float64(),
  VARCHAR: () => new Utf8(),
  BLOB: () => new Binary(),
  DATE: () => new DateDay(),
};

function scalarType(type: string): DataType {
  // Arrow JS builds decimals only from raw 128-bit words; float64 is what pandas and polars hand on anyway.
  if (type.startsWith('DECIMAL(')) return new Float64();
  return (SCALARS[type] ?? (() => new Utf8()))();
}

/** The Arrow column for a portable column (see portable-types.ts): same name, nearest Arrow type. */
export function arrowColumn(column: PortableColumn): ArrowColumn {
  const alias = column.expr.slice(column.expr.lastIndexOf(' AS ') + 4);
  const source = column.expr.slice(0, column.expr.lastIndexOf(' AS '));
  if (column.type === 'TIMESTAMP WITH TIME ZONE') {
    // Arrow JS's builders take milliseconds; epoch microseconds go straight into the vector's buffer instead.
    return {
      name: column.name,
      type: new TimestampMicrosecond('UTC'),
      expr: `epoch_us(${source}) AS ${alias}`,
      toVector: (values) => int64Vector(new TimestampMicrosecond('UTC'), values),
    };
  }
  const list = /^(.*)\[\]$/.exec(column.type);
  if (list?.[1]) {
    const type = new List(new Field('item', scalarType(list[1]), true));
    return { name: column.name, type, expr: column.expr, toVector: (values) => vectorFromArray(values as [], type) };
  }
  const type = scalarType(column.type);
  if (type instanceof Int64) {
    return { name: column.name, type, expr: column.expr, toVector: (values) => int64Vector(type, values) };
  }
  if (type instanceof Float64 && column.type.startsWith('DECIMAL(')) {
    return {
      name: column.name,
      type,
      expr: `CAST(${source} AS DOUBLE) AS ${alias}`,
      toVector: (values) => vectorFromArray(values as [], type),
    };
  }
  return { name: column.name, type, expr: column.expr, toVector: (values) => vectorFromArray(values as [], type) };
}

/** A 64-bit vector (Int64 or timestamp µs) from bigint values and nulls, without the builders' conversions. */
function int64Vector(type: Int64 | TimestampMicrosecond, values: readonly unknown[]): Vector {
  const data = new BigInt64Array(values.length);
  const validity = new Uint8Array(Math.ceil(values.length / 8));
  let nulls = 0;
  values.forEach((value, i) => {
    if (value === null || value === undefined) {
      nulls++;
      return;
    }
    data[i] = typeof value === 'bigint' ? value : BigInt(value as number);
    validity[i >> 3] = (validity[i >> 3] ?? 0) | (1 << (i & 7));
  });
  const props = { length: values.length, nullCount: nulls, nullBitmap: nulls > 0 ? validity : null, data };
  return type instanceof Int64 ? makeVector(makeData({ type, ...props })) : makeVector(makeData({ type, ...props }));
}
