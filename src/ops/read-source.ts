/**
 * Which file a reader (`vwh query`, `report`, `status`, `export`) answers from, and the one line that says so. The
 * warehouse while it is free: it has everything the last sync and build wrote, published or not. While a writer
 * holds it (a `vwh run` in progress, a `vwh sync`, a `models build`), DuckDB lets no reader open it, so the published
 * copy answers instead: the copy the last run's publish stage wrote for exactly this. The choice is made by opening
 * the warehouse read-only (and closing it) once; a writer that takes the warehouse between that and the reader's own
 * open is the one case left that ends in DB_LOCKED (exit 4).
 */
import { existsSync, statSync } from 'node:fs';
import { loadConfigLazily } from '../core/config-lazy.js';
import { isVwhError, VwhError } from '../core/errors.js';
import { Database } from '../warehouse/duckdb.js';
import { describeHolder, runInProgress } from './lock.js';
import { absolute, dbPathOf, nearbyNote, publishPathOf } from './paths.js';

export interface ReadSource {
  /** The file answered from (absolute). */
  path: string;
  kind: 'warehouse' | 'published';
  /** The warehouse asked for (absolute). */
  warehouse: string;
  /** The newest run the file records (for the published copy, the run that wrote it). */
  run: { run_id: string; status: string; started_at: string; ended_at: string | null } | null;
  /** When the published copy was written (its file's time); null for the warehouse. */
  published_at: string | null;
  /** Who holds the warehouse, when the published copy answers. */
  held_by: string | null;
}

export interface ReadSourceOptions {
  db: string;
  /** The published copy (undefined: publishing is off). */
  published?: string | undefined;
  /** The flag that named the warehouse, for messages (default --db). */
  flag?: string;
}

/** The warehouse and published copy of a reader's flags: --db, else the config's (./vwh.config.json or --config). */
export async function readerPaths(flags: {
  db?: string | undefined;
  config?: string | undefined;
}): Promise<ReadSourceOptions> {
  const config = await loadConfigLazily(flags.config);
  const db = dbPathOf(flags.db === undefined ? {} : { db: flags.db }, config);
  return { db, published: publishPathOf(db, config) };
}

/** Picks the file to read (see the module's comment); throws USAGE for a missing warehouse, DB_LOCKED without a copy. */
export async function chooseReadSource(o: ReadSourceOptions): Promise<ReadSource> {
  const { source, db } = await openReadSource(o, { access_mode: 'READ_ONLY' });
  db.close();
  return source;
}

/**
 * chooseReadSource, keeping the chosen file open with DuckDB's `options` (which must make it read-only) for the
 * caller to read and close: `vwh query` opens the file once, not once to choose it and again to query it.
 */
export async function openReadSource(
  o: ReadSourceOptions,
  options: Record<string, string> & { access_mode: 'READ_ONLY' },
): Promise<{ source: ReadSource; db: Database }> {
  const warehouse = absolute(o.db);
  if (!warehouse.startsWith(':memory:') && !existsSync(warehouse)) {
    throw new VwhError(
      'USAGE',
      `No warehouse at ${warehouse}. Fill one first (vwh run, or vwh sync), or point ${o.flag ?? '--db'} at an existing file.${nearbyNote(warehouse)}`,
    );
  }
  let db: Database;
  try {
    db = await Database.open(warehouse, options);
  } catch (error) {
    if (!isVwhError(error) || error.code !== 'DB_LOCKED') throw error;
    const holder = runInProgress(warehouse);
    const heldBy = holder
      ? describeHolder(holder)
      : 'another process (a vwh sync, a models build, a SQL shell or a BI tool)';
    const published = o.published ? absolute(o.published) : undefined;
    if (!published || !existsSync(published)) {
      const why = published
        ? `there is no published copy at ${published} yet (the first successful vwh run writes it)`
        : 'publishing is off (publish.enabled: false), so there is no published copy to read instead';
      throw new VwhError('DB_LOCKED', `${warehouse} is held by ${heldBy}, and ${why}. Run again when it is done.`, {
        cause: error,
      });
    }
    const copy = await Database.open(published, options);
    const source: ReadSource = {
      path: published,
      kind: 'published',
      warehouse,
      run: await newestRunOrClose(copy),
      published_at: statSync(published).mtime.toISOString(),
      held_by: heldBy,
    };
    return { source, db: copy };
  }
  const run = await newestRunOrClose(db);
  // The warehouse opened, so no run holds it: a run the ledger still calls running was killed before its end.
  if (run?.status === 'running') run.status = 'interrupted';
  return { source: { path: warehouse, kind: 'warehouse', warehouse, run, published_at: null, held_by: null }, db };
}

/** The one line (for stderr, so that stdout stays data) that says which file answers and as of which run. */
export function describeReadSource(s: ReadSource): string {
  if (s.kind === 'warehouse') {
    const run = s.run
      ? `as of run ${s.run.run_id} (${s.run.status}${s.run.ended_at ? `, ended ${s.run.ended_at}` : `, started ${s.run.started_at}`})`
      : 'no vwh run recorded in it';
    return `vwh: reading ${s.path}, ${run}`;
  }
  const run = s.run ? `as of run ${s.run.run_id}, ` : '';
  return `vwh: ${s.warehouse} is held by ${s.held_by}; reading the published copy ${s.path}, ${run}published ${s.published_at}`;
}

/** The newest run of the open file's ledger (null without one); closes the file when reading it fails. */
async function newestRunOrClose(db: Database): Promise<ReadSource['run']> {
  try {
    const has = await db.session.all(
      "select 1 from duckdb_tables() where schema_name = 'ops' and table_name = 'pipeline_runs'",
    );
    if (has.length === 0) return null;
    const row = await db.session.one<{ run_id: string; status: string; started_at: string; ended_at: string | null }>(
      `select run_id, status, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') as started_at,
              strftime(ended_at, '%Y-%m-%dT%H:%M:%SZ') as ended_at
         from ops.pipeline_runs where stage = 'run' order by started_at desc limit 1`,
    );
    return row ?? null;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The file a reader command reads (readerPaths, then chooseReadSource), after writing the line that names it to
 * `note` (stderr in the CLI).
 */
export async function readerFile(
  flags: { db?: string | undefined; config?: string | undefined },
  note: (line: string) => void,
): Promise<string> {
  const source = await chooseReadSource(await readerPaths(flags));
  note(describeReadSource(source));
  return source.path;
}
