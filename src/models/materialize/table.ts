import { AuditBlocked, isBlocking } from '../audits/blocked.js';
import type { AuditOutcome } from '../audits/run.js';
import { substituteMacros } from '../sql-text.js';
import { buildAndSwapTable } from '../swap.js';
import type { MaterializeContext, Materializer } from './types.js';

/**
 * `table`: rebuilt in full under a temporary name, audited there, and swapped in one transaction only if no audit
 * of severity error failed: a bad rebuild never replaces a good table.
 */
export const materializeTable: Materializer = async (ctx) => {
  const { model, sql, end } = ctx;
  const select = substituteMacros(sql, { start_date: model.config.start ?? '1970-01-01', end_date: end });
  const { rows, audits } = await buildAuditedTable(ctx, select);
  return audits ? { rowsAffected: rows, audits } : { rowsAffected: rows };
};

/**
 * Builds `select` as the model's table under a temporary name, audits it there (an error audit that fails keeps the
 * live table), and swaps it in with the model's state in one transaction.
 */
export async function buildAuditedTable(
  ctx: MaterializeContext,
  select: string,
): Promise<{ rows: number; audits?: AuditOutcome[] }> {
  const { model, exec, relations, auditNew, recordState } = ctx;
  let audits: AuditOutcome[] | undefined;
  const rows = await buildAndSwapTable(
    exec,
    relations,
    model.schema,
    model.name,
    select,
    async (temp) => {
      if (!auditNew) return;
      audits = await auditNew(temp);
      if (isBlocking(audits)) throw new AuditBlocked(audits);
    },
    recordState,
  );
  return audits ? { rows, audits } : { rows };
}
