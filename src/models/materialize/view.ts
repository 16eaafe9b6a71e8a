import { substituteMacros } from '../sql-text.js';
import { replaceWithView } from '../swap.js';
import type { Materializer } from './types.js';

/** `view`: CREATE OR REPLACE VIEW, in a transaction that also drops a table of the same name. */
export const materializeView: Materializer = async ({ model, exec, relations, sql, end, recordState }) => {
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  await replaceWithView(exec, relations, model.schema, model.name, select, recordState);
  return { rowsAffected: null };
};
