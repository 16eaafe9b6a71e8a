/**
 * One SQL statement of a user's on the warehouse, unable to change it or reach any other file (`vwh query`). The
 * user's SQL can reach nothing but the warehouse: read-only, so no statement changes it; no external access, so no
 * COPY TO, EXPORT, ATTACH, INSTALL/LOAD of extensions or read_text/read_csv of any other file; and the configuration
 * locked, so no SET undoes either. DuckDB enforces all three, whatever the statement's text. The rows come back as
 * DuckDB's own text of each value (a DATE as `2026-11-24`, a DECIMAL exact), for export/result-text.ts to print.
 */

import { DEFAULT_QUERY_TIMEOUT_S } from '../core/defaults.js';
import { VwhError } from '../core/errors.js';
import { type Database, damagedFileError, isDamage } from './duckdb.js';
import { type DuckDBDataChunk, DuckDBTypeId, JsonDuckDBValueConverter } from './duckdb-api.js';

/** DuckDB's options of a locked-down open (see the module's comment). */
export const LOCKED_DOWN: Record<string, string> & { access_mode: 'READ_ONLY' } = {
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

/** A query's columns: their names and type ids. */
export interface QueryColumns {
  columns: string[];
  types: DuckDBTypeId[];
}

/** Rows of a query (a chunk of DuckDB's, or all of them): each value as DuckDB's text and as JSON. */
export interface QueryRows {
  /** DuckDB's text of each value, null for NULL. */
  cells: Array<Array<string | null>>;
  /** JSON of each value (integers and decimals exact, text quoted, lists and structs as JSON). */
  json: string[][];
}

/** A finished query's rows: column names, type ids, and each value as DuckDB's text and as JSON. */
export interface QueryResult extends QueryColumns, QueryRows {}

/**
 * Where a streamed query's rows go: `columns` once, then `rows` per chunk of DuckDB's (2,048 rows) in order until it
 * returns false (it has what it shows) or the rows end. Only one chunk is in memory at a time.
 */
export interface RowSink {
  /** The rows' JSON is needed (JSON lines); else only their text is made. */
  json?: boolean;
  columns(head: QueryColumns): void | Promise<void>;
  rows(chunk: QueryRows): boolean | Promise<boolean>;
}

/**
 * Runs `sql` on the warehouse `file`, locked down, interrupted after `timeoutS` seconds (0: no limit), and hands
 * its rows to `sink` chunk by chunk as DuckDB produces them: memory stays flat whatever the row count. One statement
 * only (a script's second result would be dropped without a word). A failing statement is a USAGE error saying why;
 * a damaged file a data error (exit 1) saying how to restore it; a query that ran out of time exit 1 naming
 * --timeout. `db` is a file opened with LOCKED_DOWN (read-source's openReadSource); it is closed at the end.
 */
export async function queryLockedDown(
  db: Database,
  sql: string,
  sink: RowSink,
  timeoutS: number = DEFAULT_QUERY_TIMEOUT_S,
): Promise<void> {
  const file = db.path;
  let timedOut = false;
  const timer =
    timeoutS > 0
      ? setTimeout(() => {
          timedOut = true;
          db.connection.interrupt();
        }, timeoutS * 1000)
      : undefined;
  try {
    let statements: number;
    try {
      statements = (await db.connection.extractStatements(sql)).count;
    } catch (error) {
      throw failed(error);
    }
    if (statements !== 1) {
      throw new VwhError(
        'USAGE',
        statements === 0
          ? 'The query is empty: give one SQL statement, e.g. "select * from marts.brand_visibility_daily limit 5".'
          : `The query has ${statements} statements; vwh query runs one (it would print only one result). Run them ` +
              'one at a time, or make them one (UNION ALL of the same columns, or a CTE).',
        { details: { statements } },
      );
    }
    const result = await db.connection.stream(sql);
    const types = result.columnTypes().map((t) => t.typeId);
    await sink.columns({ columns: result.columnNames(), types });
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      if (!(await sink.rows(chunkRows(chunk, types, sink.json === true)))) break;
    }
  } catch (error) {
    if (error instanceof VwhError) throw error;
    if (isDamage(error)) throw damagedFileError(file, error);
    if (timedOut) {
      throw new VwhError(
        'DB_ERROR',
        `The query ran longer than --timeout ${timeoutS} s and was stopped (nothing was changed). Narrow it (a WHERE ` +
          'on a day, a LIMIT, no cross join), or give it more time: --timeout <seconds>, 0 for no limit.',
        { cause: error, details: { timeout_s: timeoutS } },
      );
    }
    throw failed(error);
  } finally {
    clearTimeout(timer);
    db.close();
  }
}

/** A statement DuckDB refused: USAGE with DuckDB's words, and why when it was the lock-down. */
function failed(error: unknown): VwhError {
  const message = (error as Error).message;
  const fence = /Permission Error|read-only mode|configuration has been locked/.test(message)
    ? ' (vwh query only reads the warehouse: it cannot write, attach, export, install or read other files)'
    : '';
  return new VwhError('USAGE', `The query failed: ${message}${fence}`, { cause: error });
}

function chunkRows(chunk: DuckDBDataChunk, types: DuckDBTypeId[], withJson: boolean): QueryRows {
  const cells = chunk.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
  if (!withJson) return { cells, json: [] };
  const json = chunk.convertRows(JsonDuckDBValueConverter).map((row, r) =>
    row.map((v, c) => {
      const text = cells[r]?.[c];
      if (v === null || text === null || text === undefined) return 'null';
      return EXACT_NUMBER_TYPES.has(types[c] as DuckDBTypeId) ? text : JSON.stringify(v);
    }),
  );
  return { cells, json };
}
