import { relationKind } from '../executor.js';
import { ident, qualified, substituteMacros } from '../sql-text.js';
import { buildAndSwapTable } from '../swap.js';
import type { Materializer } from './types.js';

/**
 * `incremental_by_unique_key`: the first build (or `--full-refresh`) creates the table; later builds replace the
 * rows whose key the query returns, by delete+insert (default) or MERGE, in one transaction.
 */
export const materializeIncrementalByUniqueKey: Materializer = async ({ model, exec, sql, end, fullRefresh }) => {
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  const exists = (await relationKind(exec, model.schema, model.name)) === 'table';
  if (!exists || fullRefresh) {
    const rows = await buildAndSwapTable(exec, model.schema, model.name, select);
    return { rowsAffected: rows, message: 'built in full' };
  }
  const rel = qualified(model.schema, model.name);
  const src = ident(`__vwh_src_${model.schema}_${model.name}`);
  const on = model.config.uniqueKey.map((k) => `t.${ident(k)} IS NOT DISTINCT FROM s.${ident(k)}`).join(' AND ');
  let rows = 0;
  await exec.transaction(async () => {
    await exec.run(`CREATE OR REPLACE TEMP TABLE ${src} AS ${select}`);
    if (model.config.strategy === 'merge') {
      rows = await exec.run(
        `MERGE INTO ${rel} AS t USING ${src} AS s ON (${on})
         WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT BY NAME`,
      );
    } else {
      await exec.run(`DELETE FROM ${rel} AS t WHERE EXISTS (SELECT 1 FROM ${src} AS s WHERE ${on})`);
      rows = await exec.run(`INSERT INTO ${rel} BY NAME SELECT * FROM ${src}`);
    }
    await exec.run(`DROP TABLE ${src}`);
  });
  return { rowsAffected: rows, message: model.config.strategy };
};
