import { VwhError } from '../../core/errors.js';
import { type Executor, relationKind } from '../executor.js';
import { sqlTimestamp } from '../intervals.js';
import { ident, literal, qualified, substituteMacros } from '../sql-text.js';
import { addedNote, addNewColumns, describeColumns } from './columns.js';
import type { Materializer } from './types.js';

/**
 * `scd2`: a history table with `valid_from`/`valid_to` (NULL for the current row). Changed rows are closed and a new
 * version opened; keys gone from the source are closed (hard deletes); new keys open. The table is never dropped,
 * not even by `--full-refresh`: its history cannot be rebuilt from the source. A query returning two rows for one
 * key is refused; a column the query starts returning is added to the table (NULL in older versions).
 */
export const materializeScd2: Materializer = async ({ model, exec, sql, end, clock, fullRefresh }) => {
  const { uniqueKey, scd2Strategy, updatedAt, invalidateHardDeletes } = model.config;
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  const rel = qualified(model.schema, model.name);
  const src = ident(`__vwh_src_${model.schema}_${model.name}`);
  const now = `TIMESTAMP ${literal(sqlTimestamp(clock.now()))}`;
  const kind = await relationKind(exec, model.schema, model.name);
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
  let rows = 0;
  let added: string[] = [];
  await exec.run(`CREATE SCHEMA IF NOT EXISTS ${ident(model.schema)}`);
  await exec.transaction(async () => {
    await exec.run(`CREATE OR REPLACE TEMP TABLE ${src} AS ${select}`);
    const columns = (await exec.all<{ column_name: string }>(`DESCRIBE ${src}`)).map((c) => c.column_name);
    for (const reserved of ['valid_from', 'valid_to']) {
      if (columns.includes(reserved)) {
        throw new VwhError('MODEL_ERROR', `${model.id}: the query must not return a column named ${reserved}.`);
      }
    }
    await refuseDuplicateKeys(exec, model.id, src, uniqueKey);
    const validFrom = scd2Strategy === 'timestamp' ? `CAST(s.${ident(updatedAt as string)} AS TIMESTAMP)` : now;
    const list = columns.map((c) => `s.${ident(c)}`).join(', ');
    const key = uniqueKey.map((k) => `t.${ident(k)} IS NOT DISTINCT FROM s.${ident(k)}`).join(' AND ');
    if (!kind) {
      rows = await exec.run(
        `CREATE TABLE ${rel} AS SELECT ${list}, ${validFrom} AS valid_from, CAST(NULL AS TIMESTAMP) AS valid_to FROM ${src} AS s`,
      );
      rows = Number(await exec.scalar(`SELECT count(*) FROM ${rel}`));
      await exec.run(`DROP TABLE ${src}`);
      return;
    }
    added = await addNewColumns(
      exec,
      model.schema,
      model.name,
      (await describeColumns(exec, src)).filter((c) => !['valid_from', 'valid_to'].includes(c.name)),
    );
    const compared = scd2Strategy === 'timestamp' ? [] : checkColumns(model.config.checkColumns, columns, uniqueKey);
    const changed =
      scd2Strategy === 'timestamp'
        ? `s.${ident(updatedAt as string)} > t.${ident(updatedAt as string)}`
        : compared.map((c) => `t.${ident(c)} IS DISTINCT FROM s.${ident(c)}`).join(' OR ') || 'false';
    // Close the current version of every key whose row changed; new versions are inserted below.
    rows += await exec.run(
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
    await exec.run(`DROP TABLE ${src}`);
  });
  const kept = fullRefresh ? 'scd2 history kept (--full-refresh never drops it)' : '';
  const message = `${kept}${addedNote(added)}`.replace(/^; /, '');
  return message ? { rowsAffected: rows, message } : { rowsAffected: rows };
};

/** Two rows for one key would open two current versions; the snapshot refuses rather than corrupt the history. */
async function refuseDuplicateKeys(exec: Executor, id: string, src: string, key: string[]): Promise<void> {
  const cols = key.map(ident).join(', ');
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
