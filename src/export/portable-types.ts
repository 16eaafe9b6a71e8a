/**
 * The casts applied before a table leaves DuckDB, so that every reader (Spark, Trino, BigQuery, pandas/pyarrow,
 * polars, Excel through Power Query) reads each column as the same logical type. docs/lake.md has the table.
 */
import { quoteIdent } from '../core/sql.js';

export interface SourceColumn {
  name: string;
  /** DuckDB's type as duckdb_columns() spells it: `UUID`, `DECIMAL(18,3)`, `VARCHAR[]`, `STRUCT(a INTEGER)`. */
  type: string;
}

export interface PortableColumn {
  name: string;
  sourceType: string;
  /** The type written (DuckDB spelling). */
  type: string;
  /** The select expression that produces it, aliased to `name`. */
  expr: string;
}

/** Scalar types every reader above maps without loss or surprise, kept as they are. */
const KEPT = new Set([
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'VARCHAR',
  'BLOB',
  'DATE',
  'TIMESTAMP WITH TIME ZONE',
]);

/** Scalar casts: type → written type, with the reason a reader trips over the original. */
const CAST: Record<string, string> = {
  // No UUID logical type in Spark, BigQuery or pandas < 2 (pyarrow reads it as fixed_size_binary(16)).
  UUID: 'VARCHAR',
  // 128-bit integers do not exist outside DuckDB; DECIMAL(38,0) is the widest decimal they all read.
  HUGEINT: 'DECIMAL(38,0)',
  UHUGEINT: 'DECIMAL(38,0)',
  // Spark and BigQuery have no unsigned integers: widen to the next signed type.
  UTINYINT: 'SMALLINT',
  USMALLINT: 'INTEGER',
  UINTEGER: 'BIGINT',
  UBIGINT: 'DECIMAL(20,0)',
  // Nanosecond timestamps overflow pandas < 2 and Spark reads them as INT64; the warehouse holds UTC instants, so
  // every timestamp becomes TIMESTAMPTZ (µs, isAdjustedToUTC = true): Spark TimestampType, BigQuery TIMESTAMP,
  // pandas datetime64[us, UTC]. The session time zone is UTC, so the cast does not shift the value.
  TIMESTAMP: 'TIMESTAMP WITH TIME ZONE',
  TIMESTAMP_NS: 'TIMESTAMP WITH TIME ZONE',
  TIMESTAMP_MS: 'TIMESTAMP WITH TIME ZONE',
  TIMESTAMP_S: 'TIMESTAMP WITH TIME ZONE',
  // Parquet TIME is unknown to Spark and BigQuery external tables: ISO text (HH:MM:SS[.ffffff]) instead.
  TIME: 'VARCHAR',
  'TIME WITH TIME ZONE': 'VARCHAR',
  // Spark cannot read BINARY annotated JSON; text is what every reader parses.
  JSON: 'VARCHAR',
  BIT: 'VARCHAR',
};

const DECIMAL = /^DECIMAL\(\d+,\d+\)$/;
const ENUM = /^ENUM\(/;

function portableScalar(type: string): string | undefined {
  if (KEPT.has(type) || DECIMAL.test(type)) return type;
  if (ENUM.test(type)) return 'VARCHAR';
  return CAST[type];
}

/** Spelled for the log and the manifest: which logical type each column is written as. */
export function portableColumn(column: SourceColumn, alias = ''): PortableColumn {
  const name = quoteIdent(column.name);
  const ident = alias ? `${alias}.${name}` : name;
  const type = column.type.trim();
  const scalar = portableScalar(type);
  if (scalar !== undefined) {
    return { name: column.name, sourceType: type, type: scalar, expr: castExpr(ident, name, type, scalar) };
  }
  if (type === 'INTERVAL') {
    // No reader has a Parquet INTERVAL it trusts: microseconds as BIGINT, documented per column in the manifest.
    return {
      name: column.name,
      sourceType: type,
      type: 'BIGINT',
      expr: `CAST(round(epoch(${ident}) * 1000000) AS BIGINT) AS ${name}`,
    };
  }
  // A list of one scalar type is the nested shape BigQuery's list inference, Spark and pandas all read.
  const list = /^(.*)\[\]$/.exec(type);
  const inner = list?.[1] ? portableScalar(list[1]) : undefined;
  if (list?.[1] && inner !== undefined) {
    const element = inner === list[1] ? type : `${inner}[]`;
    return {
      name: column.name,
      sourceType: type,
      type: element,
      expr: element === type ? `${ident} AS ${name}` : `CAST(${ident} AS ${element}) AS ${name}`,
    };
  }
  // Structs, maps, unions, lists of lists or of structs: JSON text, which no reader misreads.
  return {
    name: column.name,
    sourceType: type,
    type: 'VARCHAR',
    expr: `CAST(to_json(${ident}) AS VARCHAR) AS ${name}`,
  };
}

/**
 * Timestamps whose microseconds since the epoch are exact (µs, ms, s): a TIMESTAMPTZ is those same microseconds, so
 * `make_timestamptz(epoch_us(x))` is the cast, without the ICU calendar DuckDB's CAST goes through for every value
 * (several times the time: docs/lab/2026-11-code-constants.md#the-exports). ±infinity (whose epoch_us is null) takes
 * the CAST. TIMESTAMP_NS keeps the CAST (its sub-microsecond digits).
 */
const MICROS_EXACT = new Set(['TIMESTAMP', 'TIMESTAMP_MS', 'TIMESTAMP_S']);

function castExpr(ident: string, name: string, from: string, to: string): string {
  if (from === to) return `${ident} AS ${name}`;
  if (to === 'TIMESTAMP WITH TIME ZONE' && MICROS_EXACT.has(from)) {
    return `CASE WHEN isfinite(${ident}) THEN make_timestamptz(epoch_us(${ident})) ELSE CAST(${ident} AS ${to}) END AS ${name}`;
  }
  return `CAST(${ident} AS ${to}) AS ${name}`;
}

/** The columns as written; `alias` qualifies the source columns (`t` → `t."col"`). */
export function portableColumns(columns: readonly SourceColumn[], alias = ''): PortableColumn[] {
  return columns.map((c) => portableColumn(c, alias));
}
