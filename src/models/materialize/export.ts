import { renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { makeFolders } from '../../core/folders.js';
import { quoteLiteral } from '../../core/sql.js';
import { substituteMacros } from '../sql-text.js';
import { replaceWithView } from '../swap.js';
import type { Materializer } from './types.js';

/**
 * `export`: COPY the SELECT to a Parquet (zstd by default) or CSV file, relative paths from the warehouse file's folder, written beside the target and renamed over
 * it so readers never see half a file, then a view over the file under the model's name.
 */
export const materializeExport: Materializer = async ({
  model,
  exec,
  relations,
  sql,
  end,
  runId,
  baseDir,
  recordState,
}) => {
  const { exportPath, exportFormat, compression } = model.config;
  const target = resolve(baseDir, exportPath as string);
  makeFolders(dirname(target));
  const partial = `${target}.${runId}.partial`;
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  const options =
    exportFormat === 'parquet' ? `FORMAT parquet, COMPRESSION ${quoteLiteral(compression)}` : 'FORMAT csv, HEADER true';
  let rows: number;
  try {
    rows = await exec.run(`COPY (${select}) TO ${quoteLiteral(partial)} (${options})`);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  renameSync(partial, target);
  const reader = exportFormat === 'parquet' ? 'read_parquet' : 'read_csv_auto';
  await replaceWithView(
    exec,
    relations,
    model.schema,
    model.name,
    `SELECT * FROM ${reader}(${quoteLiteral(target)})`,
    recordState,
  );
  return { rowsAffected: rows, message: target };
};
