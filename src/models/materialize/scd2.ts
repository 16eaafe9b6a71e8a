import { VwhError } from '../../core/errors.js';
import { quoteIdent, quoteLiteral } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { sqlTimestamp } from '../intervals.js';
import type { Relations } from '../relations.js';
import { qualified, substituteMacros } from '../sql-text.js';
import type { Model } from '../types.js';
import { addedNote, addNewColumns, describeColumns } from './columns.js';
import type { Materializer } from './types.js';

/**
 * `scd2`: a history table with `valid_from`/`valid_to` (NULL for the current row). Changed rows are closed and a new
 * version opened; keys gone from the source are closed (hard deletes); new keys open. The table is never dropped,
 * not even by `--full-refresh`: its history cannot be rebuilt from the source. A column the query starts returning
 * is added to the table (NULL in older versions).
 *
 * Two modes. Undated (strategy `check` without `snapshot_time_column`): one row per key, versions dated by the build
 * time; two rows for one key are refused. Dated (strategy `timestamp`, dated by `updated_at`, or strategy `check` with
 * `snapshot_time_column`): the query may return several rows per key, one per date, e.g. every daily snapshot kept.
 * Rows are ordered by their date; consecutive rows that do not change (check: same checked columns; timestamp: every
 * newer updated_at is a change) collapse into one version; a version runs from its first row's date to the next
 * version's. Only rows dated after a key's last known date (its current version's valid_from, or the close of its last
 * version) are applied, so a rebuild adds nothing and never rewrites history. Two rows for one key and date are
 * refused. Everything happens in SQL (window functions) in one transaction.
 */
export const materializeScd2: Materializer = async ({
  model,
  exec,
  relations,
  sql,
  end,
  clock,
  fullRefresh,
  recordState,
}) => {
  const { scd2Strategy, updatedAt, snapshotTimeColumn } = model.config;
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  const rel = qualified(model.schema, model.name);
  const src = quoteIdent(`__vwh_src_${model.schema}_${model.name}`);
  const now = `TIMESTAMP ${quoteLiteral(sqlTimestamp(clock.now()))}`;
  const dateColumn = scd2Strategy === 'timestamp' ? updatedAt : snapshotTimeColumn;
  const exists = await existingHistory(exec, relations, model, rel);
  let built: { rows: number; added: string[] } = { rows: 0, added: [] };
  await exec.transaction(async () => {
    await exec.run(`CREATE OR REPLACE TEMP TABLE ${src} AS ${select}`);
    const columns = (await exec.all<{ column_name: string }>(`DESCRIBE ${src}`)).map((c) => c.column_name);
    checkSourceColumns(model, columns, dateColumn);
    const target = { model, exec, rel, src, now, columns, exists };
    built = dateColumn === undefined ? await buildUndated(target) : await buildDated(target, dateColumn);
    await exec.run(`DROP TABLE ${src}`);
    await recordState?.();
  });
  relations.set(model.schema, model.name, 'table');
  const kept = fullRefresh ? 'scd2 history kept (--full-refresh never drops it)' : '';
  const message = `${kept}${addedNote(built.added)}`.replace(/^; /, '');
  return message ? { rowsAffected: built.rows, message } : { rowsAffected: built.rows };
};

/** Whether the history table exists; a view of its name, or a table without valid_from/valid_to, is refused. */
async function existingHistory(exec: Session, relations: Relations, model: Model, rel: string): Promise<boolean> {
  const kind = relations.kind(model.schema, model.name);
  if (kind === 'view') {
    throw new VwhError('MODEL_ERROR', `${model.id} is a view; an scd2 model needs its table. Drop the view first.`);
  }
  if (kind === 'table') {
    const existing = (await describeColumns(exec, rel)).map((c) => c.name);
    if (!existing.includes('valid_from') || !existing.includes('valid_to')) {
      throw new VwhError(
        'MODEL_ERROR',
        `${model.id} exists but is not an scd2 history (no valid_from/valid_to columns); nothing was changed. ` +
          `Rename or drop the old table by hand to start the history.`,
      );
    }
  }
  return kind === 'table';
}

/** The query returns the key and the date it is configured with, and none of the history's own columns. */
function checkSourceColumns(model: Model, columns: string[], dateColumn: string | undefined): void {
  for (const reserved of dateColumn === undefined
    ? ['valid_from', 'valid_to']
    : ['valid_from', 'valid_to', 'last_seen']) {
    if (columns.includes(reserved)) {
      throw new VwhError('MODEL_ERROR', `${model.id}: the query must not return a column named ${reserved}.`);
    }
  }
  for (const k of model.config.uniqueKey) {
    if (!columns.includes(k))
      throw new VwhError('MODEL_ERROR', `${model.id}: unique_key names ${k}, which the query does not return.`);
  }
  if (dateColumn !== undefined && !columns.includes(dateColumn)) {
    throw new VwhError(
      'MODEL_ERROR',
      `${model.id}: ${dateSetting(model)} names ${dateColumn}, which the query does not return.`,
    );
  }
}

function dateSetting(model: Model): string {
  return model.config.scd2Strategy === 'timestamp' ? 'updated_at' : 'snapshot_time_column';
}

/** One build's target: the history `rel`, the query's rows in the temp table `src`, the build time `now`. */
interface Scd2Target {
  model: Model;
  exec: Session;
  rel: string;
  src: string;
  now: string;
  columns: string[];
  exists: boolean;
}

/** The dated mode: creates the table (or adds the query's new columns), then applies the rows by their dates. */
async function buildDated(t: Scd2Target, dateColumn: string): Promise<{ rows: number; added: string[] }> {
  const { model, exec, rel, src } = t;
  const { uniqueKey, scd2Strategy } = model.config;
  // check: the columns whose change opens a version (default: all but the key and the date); timestamp: none
  // are compared, every newer updated_at is a version.
  const compared =
    scd2Strategy === 'timestamp'
      ? undefined
      : checkColumns(model.config.checkColumns, t.columns, [...uniqueKey, dateColumn]);
  let added: string[] = [];
  if (!t.exists) {
    // An empty table of the query's shape: the first build is the general case with no known versions.
    await exec.run(
      `CREATE TABLE ${rel} AS SELECT *, CAST(NULL AS TIMESTAMP) AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to,
              CAST(NULL AS TIMESTAMP) AS last_seen FROM ${src} LIMIT 0`,
    );
  } else {
    added = await addNewColumns(exec, model.schema, model.name, await describeColumns(exec, src));
    // A table first built undated (or before this column existed) learns it; NULL reads as valid_from.
    await exec.run(`ALTER TABLE ${rel} ADD COLUMN IF NOT EXISTS last_seen TIMESTAMP`);
  }
  const rows = await applyDated(exec, {
    model: model.id,
    path: model.path,
    rel,
    src,
    now: t.now,
    columns: t.columns,
    key: uniqueKey,
    dateColumn,
    setting: dateSetting(model),
    compared,
    invalidateHardDeletes: model.config.invalidateHardDeletes,
  });
  return { rows, added };
}

/**
 * The undated mode: one row per key, versions dated by the build time. Closes the current version of changed keys
 * (and of keys gone, with invalidate_hard_deletes), then opens one for every key without a current row.
 */
async function buildUndated(t: Scd2Target): Promise<{ rows: number; added: string[] }> {
  const { model, exec, rel, src, now, columns } = t;
  const { uniqueKey, invalidateHardDeletes } = model.config;
  await refuseDuplicateKeys(exec, model.id, src, uniqueKey);
  const validFrom = now;
  const list = columns.map((c) => `s.${quoteIdent(c)}`).join(', ');
  const key = uniqueKey.map((k) => `t.${quoteIdent(k)} IS NOT DISTINCT FROM s.${quoteIdent(k)}`).join(' AND ');
  if (!t.exists) {
    await exec.run(
      `CREATE TABLE ${rel} AS SELECT ${list}, ${validFrom} AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to FROM ${src} AS s`,
    );
    return { rows: Number(await exec.scalar(`SELECT count(*) FROM ${rel}`)), added: [] };
  }
  const added = await addNewColumns(
    exec,
    model.schema,
    model.name,
    (await describeColumns(exec, src)).filter((c) => !['valid_from', 'valid_to'].includes(c.name)),
  );
  const compared = checkColumns(model.config.checkColumns, columns, uniqueKey);
  const changed = compared.map((c) => `t.${quoteIdent(c)} IS DISTINCT FROM s.${quoteIdent(c)}`).join(' OR ') || 'false';
  // Close the current version of every key whose row changed; new versions are inserted below.
  let rows = await exec.run(
    `UPDATE ${rel} AS t SET valid_to = ${validFrom} FROM ${src} AS s
     WHERE t.valid_to IS NULL AND ${key} AND (${changed})`,
  );
  if (invalidateHardDeletes) {
    rows += await exec.run(
      `UPDATE ${rel} AS t SET valid_to = ${now}
       WHERE t.valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM ${src} AS s WHERE ${key})`,
    );
  }
  // Open a version for every key without a current row: new keys, changed keys (closed above), returning keys.
  rows += await exec.run(
    `INSERT INTO ${rel} BY NAME
     SELECT ${list}, ${validFrom} AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to FROM ${src} AS s
     WHERE NOT EXISTS (SELECT 1 FROM ${rel} AS t WHERE t.valid_to IS NULL AND ${key})`,
  );
  return { rows, added };
}

interface DatedBuild {
  model: string;
  path: string;
  rel: string;
  src: string;
  now: string;
  columns: string[];
  key: string[];
  dateColumn: string;
  setting: string;
  /** check: the columns whose change opens a version; timestamp (undefined): every newer date does. */
  compared: string[] | undefined;
  invalidateHardDeletes: boolean;
}

/**
 * The dated mode, inside the build's transaction. `seq` holds, per key, its current version (as a pseudo-row dated by
 * its valid_from) followed by the source rows dated after the key's last known date; a row opens a version when it
 * differs from the row before it. The current version is closed at the first new version's date, each new version
 * at the next one's. Returns the rows written.
 */
async function applyDated(exec: Session, b: DatedBuild): Promise<number> {
  const { rel, src, now, key } = b;
  const d = `CAST(${quoteIdent(b.dateColumn)} AS TIMESTAMP)`;
  const keys = key.map(quoteIdent).join(', ');
  const on = (l: string, r: string) =>
    key.map((k) => `${l}.${quoteIdent(k)} IS NOT DISTINCT FROM ${r}.${quoteIdent(k)}`).join(' AND ');
  const undated = await exec.all<Record<string, unknown>>(
    `SELECT ${keys} FROM ${src} WHERE ${quoteIdent(b.dateColumn)} IS NULL LIMIT 1`,
  );
  if (undated[0]) {
    throw new VwhError(
      'MODEL_ERROR',
      `${b.model} (${b.path}): ${b.setting} ${b.dateColumn} is NULL for key (${showKey(undated[0], key)}); ` +
        'every row needs a date. Nothing was changed.',
    );
  }
  const dupes = await exec.all<Record<string, unknown>>(
    `SELECT ${keys}, strftime(${d}, '%Y-%m-%d %H:%M:%S') AS __vwh_date, count(*) AS __vwh_n FROM ${src}
     GROUP BY ALL HAVING count(*) > 1 ORDER BY ${keys}, __vwh_date LIMIT 3`,
  );
  if (dupes.length > 0) {
    const shown = dupes.map((r) => `(${showKey(r, key)}) at ${r.__vwh_date} x${r.__vwh_n}`).join(', ');
    throw new VwhError(
      'MODEL_ERROR',
      `${b.model} (${b.path}): the query returns more than one row for one unique_key [${key.join(', ')}] and ` +
        `${b.setting} ${b.dateColumn}, e.g. ${shown}; a dated scd2 model needs one row per key and date. ` +
        'Nothing was changed.',
    );
  }
  const cols = b.columns.map(quoteIdent).join(', ');
  const sCols = b.columns.map((c) => `s.${quoteIdent(c)}`).join(', ');
  const opens =
    b.compared === undefined
      ? 'true'
      : b.compared.map((c) => `${quoteIdent(c)} IS DISTINCT FROM lag(${quoteIdent(c)}) OVER w`).join(' OR ') || 'false';
  const seq = quoteIdent(`${src.replace(/"/g, '')}_seq`);
  // Per key, its last known date: the newest date folded into its versions (last_seen) or closing one.
  // `rows`: each key's current version (a pseudo-row dated by its valid_from) and the source rows after that date.
  // A new row opens a version when it differs from the row before it; `__vwh_run` numbers the versions so each
  // version's last_seen is the newest date of its run, and `__vwh_next` is the next version's start.
  await exec.run(`CREATE OR REPLACE TEMP TABLE ${seq} AS
    WITH known AS (
      SELECT ${keys}, max(greatest(valid_from, valid_to, last_seen)) AS __vwh_last FROM ${rel} GROUP BY ALL
    ),
    rows AS (
      SELECT ${cols}, valid_from AS __vwh_d, true AS __vwh_current FROM ${rel} WHERE valid_to IS NULL
      UNION ALL
      SELECT ${sCols}, CAST(s.${quoteIdent(b.dateColumn)} AS TIMESTAMP), false
      FROM ${src} AS s LEFT JOIN known AS k ON ${on('k', 's')}
      WHERE k.__vwh_last IS NULL OR CAST(s.${quoteIdent(b.dateColumn)} AS TIMESTAMP) > k.__vwh_last
    ),
    marked AS (
      SELECT *, NOT __vwh_current AND (lag(__vwh_d) OVER w IS NULL OR ${opens}) AS __vwh_opens
      FROM rows WINDOW w AS (PARTITION BY ${keys} ORDER BY __vwh_d)
    ),
    runs AS (
      SELECT *, sum(CAST(__vwh_current OR __vwh_opens AS INTEGER)) OVER (
        PARTITION BY ${keys} ORDER BY __vwh_d ROWS UNBOUNDED PRECEDING) AS __vwh_run
      FROM marked
    ),
    seen AS (
      SELECT *, max(__vwh_d) OVER (PARTITION BY ${keys}, __vwh_run) AS __vwh_seen FROM runs
    )
    SELECT *, lead(__vwh_d) OVER (PARTITION BY ${keys} ORDER BY __vwh_d) AS __vwh_next
    FROM seen WHERE __vwh_current OR __vwh_opens`);
  let written = 0;
  // Keys that came back unchanged after their versions were closed (no row newer than the close): open at build time.
  written += await exec.run(
    `INSERT INTO ${rel} BY NAME
     SELECT ${sCols}, ${now} AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to,
            CAST(s.${quoteIdent(b.dateColumn)} AS TIMESTAMP) AS last_seen
     FROM ${src} AS s
     WHERE EXISTS (SELECT 1 FROM ${rel} AS t WHERE ${on('t', 's')})
       AND NOT EXISTS (SELECT 1 FROM ${rel} AS t WHERE t.valid_to IS NULL AND ${on('t', 's')})
       AND NOT EXISTS (SELECT 1 FROM ${seq} AS q WHERE ${on('q', 's')})
     QUALIFY row_number() OVER (
       PARTITION BY ${key.map((k) => `s.${quoteIdent(k)}`).join(', ')}
       ORDER BY CAST(s.${quoteIdent(b.dateColumn)} AS TIMESTAMP) DESC) = 1`,
  );
  if (b.invalidateHardDeletes) {
    written += await exec.run(
      `UPDATE ${rel} AS t SET valid_to = ${now}
       WHERE t.valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM ${src} AS s WHERE ${on('t', 's')})`,
    );
  }
  // The current version: closed at the next version's start when one follows; its last_seen moved to the newest
  // unchanged row folded into it.
  written += await exec.run(
    `UPDATE ${rel} AS t SET valid_to = q.__vwh_next, last_seen = greatest(t.last_seen, q.__vwh_seen)
     FROM ${seq} AS q
     WHERE t.valid_to IS NULL AND q.__vwh_current AND ${on('t', 'q')}
       AND (q.__vwh_next IS NOT NULL OR q.__vwh_seen > greatest(t.last_seen, t.valid_from))`,
  );
  written += await exec.run(
    `INSERT INTO ${rel} BY NAME
     SELECT ${cols}, __vwh_d AS valid_from, __vwh_next AS valid_to, __vwh_seen AS last_seen
     FROM ${seq} WHERE __vwh_opens`,
  );
  await exec.run(`DROP TABLE ${seq}`);
  return written;
}

function showKey(row: Record<string, unknown>, key: string[]): string {
  return key.map((k) => String(row[k])).join(', ');
}

/** Two rows for one key would open two current versions; the snapshot refuses rather than corrupt the history. */
async function refuseDuplicateKeys(exec: Session, id: string, src: string, key: string[]): Promise<void> {
  const cols = key.map(quoteIdent).join(', ');
  const dupes = await exec.all<Record<string, unknown>>(
    `SELECT ${cols}, count(*) AS n_rows FROM ${src} GROUP BY ALL HAVING count(*) > 1 ORDER BY n_rows DESC LIMIT 3`,
  );
  if (dupes.length === 0) return;
  const shown = dupes.map((d) => `(${key.map((k) => String(d[k])).join(', ')}) x${d.n_rows}`).join(', ');
  throw new VwhError(
    'MODEL_ERROR',
    `${id}: the query returns more than one row per unique_key [${key.join(', ')}], e.g. ${shown}; ` +
      'an scd2 model needs one row per key. Nothing was changed.',
  );
}

function checkColumns(declared: string[], columns: string[], key: string[]): string[] {
  if (declared.length === 0) return columns.filter((c) => !key.includes(c));
  for (const c of declared) {
    if (!columns.includes(c))
      throw new VwhError('MODEL_ERROR', `check_columns names ${c}, which the query does not return.`);
  }
  return declared;
}
