/**
 * One SQL statement of a user's on the warehouse, unable to change it or reach any other file (`vwh query`). The
 * user's SQL can reach nothing but the warehouse: read-only, so no statement changes it; no external access, so no
 * COPY TO, EXPORT, ATTACH, INSTALL/LOAD of extensions or read_text/read_csv of any other file; and the configuration
 * locked, so no SET undoes either. DuckDB enforces all three, whatever the statement's text.
 */
import { VwhError } from '../core/errors.js';
import { Database } from './duckdb.js';
import { normalizeRow, type SqlRow } from './session.js';

const LOCKED_DOWN = {
  access_mode: 'READ_ONLY',
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  lock_configuration: 'true',
};

export interface QueryResult {
  columns: string[];
  rows: SqlRow[];
}

/** Runs `sql` on the warehouse `file`, locked down; a failing statement is a USAGE error saying why. */
export async function lockedQuery(file: string, sql: string): Promise<QueryResult> {
  const db = await Database.open(file, LOCKED_DOWN);
  try {
    const reader = await db.connection.runAndReadAll(sql);
    return { columns: reader.columnNames(), rows: reader.getRowObjectsJS().map(normalizeRow) };
  } catch (error) {
    const message = (error as Error).message;
    const fence = /Permission Error|read-only mode|configuration has been locked/.test(message)
      ? ' (vwh query only reads the warehouse: it cannot write, attach, export, install or read other files)'
      : '';
    throw new VwhError('USAGE', `The query failed: ${message}${fence}`, { cause: error });
  } finally {
    db.close();
  }
}
