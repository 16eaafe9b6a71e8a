/**
 * One SQL statement of a user's on the warehouse, unable to change it or reach any other file (`vwh query`). The
 * user's SQL can reach nothing but the warehouse: read-only, so no statement changes it; no external access, so no
 * COPY TO, EXPORT, ATTACH, INSTALL/LOAD of extensions or read_text/read_csv of any other file; and the configuration
 * locked, so no SET undoes either. DuckDB enforces all three, whatever the statement's text. The rows come back as
 * DuckDB's own text of each value (a DATE as `2026-11-24`, a DECIMAL exact), for export/result-text.ts to print.
 */
import { type DuckDBResultReader, DuckDBTypeId } from '@duckdb/node-api';
import { DEFAULT_QUERY_TIMEOUT_S } from '../core/defaults.js';
import { VwhError } from '../core/errors.js';
import { Database, damagedFileError, isDamage } from './duckdb.js';

const LOCKED_DOWN = {
  access_mode: 'READ_ONLY',
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  lock_configuration: 'true',
};

/** Integer and decimal types: DuckDB's text of one is a valid JSON number, exact where a JS number would round. */
export const EXACT_NUMBER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.BIGNUM,
]);
export const FLOAT_TYPES: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE]);

/** A finished query's rows: column names, type ids, and each value as DuckDB's text and as JSON. */
export interface QueryResult {
  columns: string[];
  types: DuckDBTypeId[];
  /** DuckDB's text of each value, null for NULL. */
  cells: Array<Array<string | null>>;
  /** JSON of each value (integers and decimals exact, text quoted, lists and structs as JSON). */
  json: string[][];
}

/**
 * Runs `sql` on the warehouse `file`, locked down, interrupted after `timeoutS` seconds (0: no limit). A failing
 * statement is a USAGE error saying why; a damaged file a data error (exit 1) saying how to restore it; a query
 * that ran out of time exit 1 naming --timeout.
 */
export async function lockedQuery(
  file: string,
  sql: string,
  timeoutS: number = DEFAULT_QUERY_TIMEOUT_S,
): Promise<QueryResult> {
  const db = await Database.open(file, LOCKED_DOWN);
  let timedOut = false;
  const timer =
    timeoutS > 0
      ? setTimeout(() => {
          timedOut = true;
          db.connection.interrupt();
        }, timeoutS * 1000)
      : undefined;
  try {
    return queryResult(await db.connection.runAndReadAll(sql));
  } catch (error) {
    if (isDamage(error)) throw damagedFileError(file, error);
    if (timedOut) {
      throw new VwhError(
        'DB_ERROR',
        `The query ran longer than --timeout ${timeoutS} s and was stopped (nothing was changed). Narrow it (a WHERE ` +
          'on a day, a LIMIT, no cross join), or give it more time: --timeout <seconds>, 0 for no limit.',
        { cause: error, details: { timeout_s: timeoutS } },
      );
    }
    const message = (error as Error).message;
    const fence = /Permission Error|read-only mode|configuration has been locked/.test(message)
      ? ' (vwh query only reads the warehouse: it cannot write, attach, export, install or read other files)'
      : '';
    throw new VwhError('USAGE', `The query failed: ${message}${fence}`, { cause: error });
  } finally {
    clearTimeout(timer);
    db.close();
  }
}

function queryResult(reader: DuckDBResultReader): QueryResult {
  const columns = reader.columnNames();
  const types = reader.columnTypes().map((t) => t.typeId);
  const cells = reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
  const json = reader.getRowsJson().map((row, r) =>
    row.map((v, c) => {
      const text = cells[r]?.[c];
      if (v === null || text === null || text === undefined) return 'null';
      return EXACT_NUMBER_TYPES.has(types[c] as DuckDBTypeId) ? text : JSON.stringify(v);
    }),
  );
  return { columns, types, cells, json };
}
