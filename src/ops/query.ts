/**
 * `vwh query`'s work: one SQL statement on the warehouse, read-only and unable to touch any other file, printed as
 * DuckDB's own CLI prints it (export/result-text.ts). It is there so that the queries `vwh run` and the docs suggest
 * work without the DuckDB CLI installed.
 */
import { VwhError } from '../core/errors.js';
import { RESULT_FORMATS, type ResultFormat, resultSink } from '../export/result-text.js';
import { LOCKED_DOWN, queryLockedDown } from '../warehouse/locked-query.js';
import { describeReadSource, openReadSource } from './read-source.js';

export type QueryFormat = ResultFormat;

export interface QueryFlags {
  db: string;
  /** The published copy, read when a writer holds `db` (undefined: publishing is off). */
  published?: string | undefined;
  format: QueryFormat;
  maxRows: number;
  /** Seconds before the query is interrupted (default DEFAULT_QUERY_TIMEOUT_S; 0: no limit). */
  timeout?: number;
}

/**
 * Runs `sql` locked down on the warehouse, or on the published copy while a writer holds it (read-source.ts), and
 * writes the rows to `out` as they come and which file answered to `note`; returns the number of rows printed.
 */
export async function runQuery(
  sql: string,
  flags: QueryFlags,
  out: NodeJS.WritableStream,
  note: (line: string) => void = () => {},
): Promise<number> {
  if (!RESULT_FORMATS.includes(flags.format)) {
    throw new VwhError('USAGE', `--format must be one of ${RESULT_FORMATS.join(', ')}, got ${flags.format}.`);
  }
  // one open: the file that answers is chosen, its ledger read and the query run on the same locked-down instance
  const { source, db } = await openReadSource({ db: flags.db, published: flags.published }, LOCKED_DOWN);
  note(describeReadSource(source));
  const sink = resultSink(flags.format, flags.maxRows, out);
  await queryLockedDown(db, sql, sink, flags.timeout);
  return sink.end();
}
