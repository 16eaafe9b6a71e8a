import { AuditBlocked, isBlocking } from '../audits/blocked.js';
import type { AuditOutcome } from '../audits/run.js';
import { substituteMacros } from '../sql-text.js';
import { buildAndSwapTable } from '../swap.js';
import type { Materializer } from './types.js';

/**
 * `table`: rebuilt in full under a temporary name, audited there, and swapped in one transaction only if no audit
 * of severity error failed: a bad rebuild never replaces a good table.
 */
export const materializeTable: Materializer = async ({ model, exec, relations, sql, end, auditNew }) => {
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  let audits: AuditOutcome[] | undefined;
  const rows = await buildAndSwapTable(exec, relations, model.schema, model.name, select, async (temp) => {
    if (!auditNew) return;
    audits = await auditNew(temp);
    if (isBlocking(audits)) throw new AuditBlocked(audits);
  });
  return audits ? { rowsAffected: rows, audits } : { rowsAffected: rows };
};
