import { addDays, maxDay } from '../../core/days.js';
import { quoteIdent } from '../../core/sql.js';
import { qualified, substituteMacros } from '../sql-text.js';
import { addedNote, addNewColumns, describeColumns } from './columns.js';
import { buildAuditedTable } from './table.js';
import type { Materializer } from './types.js';

/**
 * `incremental_by_unique_key`: the first build (or `--full-refresh`) creates the table; later builds replace the
 * rows whose key the query returns, by delete+insert (default) or MERGE, in one transaction. A column the query
 * starts returning is added to the table (forward-only). A full build is audited before it is swapped in.
 */
export const materializeIncrementalByUniqueKey: Materializer = async (ctx) => {
  const { model, exec, relations, sql, end, fullRefresh, recordState } = ctx;
  const exists = relations.kind(model.schema, model.name) === 'table';
  const full = !exists || fullRefresh;
  // The window an incremental build reads: from the day of the last build (less `lookback` days) to the end day;
  // a full build reads from the header's start. `where updated_at >= @start_date` makes each build small.
  const from =
    !full && ctx.lastBuiltOn
      ? maxDay(addDays(ctx.lastBuiltOn, -model.config.lookback), model.config.start ?? '1970-01-01')
      : (model.config.start ?? '1970-01-01');
  const select = substituteMacros(sql, { start_date: from, end_date: end });
  if (full) {
    // Built in full like a table, and audited before the swap like one.
    const { rows, audits } = await buildAuditedTable(ctx, select);
    return { rowsAffected: rows, message: 'built in full', audits };
  }
  const rel = qualified(model.schema, model.name);
  const src = quoteIdent(`__vwh_src_${model.schema}_${model.name}`);
  const on = model.config.uniqueKey
    .map((k) => `t.${quoteIdent(k)} IS NOT DISTINCT FROM s.${quoteIdent(k)}`)
    .join(' AND ');
  let rows = 0;
  let added: string[] = [];
  await exec.transaction(async () => {
    await exec.run(`CREATE OR REPLACE TEMP TABLE ${src} AS ${select}`);
    const columns = await describeColumns(exec, src);
    added = await addNewColumns(exec, model.schema, model.name, columns);
    if (model.config.strategy === 'merge') {
      // Named columns rather than `UPDATE SET *`, which fails once the table has a column the query no longer has.
      const set = columns.map((c) => `${quoteIdent(c.name)} = s.${quoteIdent(c.name)}`).join(', ');
      rows = await exec.run(
        `MERGE INTO ${rel} AS t USING ${src} AS s ON (${on})
         WHEN MATCHED THEN UPDATE SET ${set} WHEN NOT MATCHED THEN INSERT BY NAME`,
      );
    } else {
      await exec.run(`DELETE FROM ${rel} AS t WHERE EXISTS (SELECT 1 FROM ${src} AS s WHERE ${on})`);
      rows = await exec.run(`INSERT INTO ${rel} BY NAME SELECT * FROM ${src}`);
    }
    await exec.run(`DROP TABLE ${src}`);
    await recordState?.();
  });
  return { rowsAffected: rows, message: `${model.config.strategy} from ${from}${addedNote(added)}` };
};
