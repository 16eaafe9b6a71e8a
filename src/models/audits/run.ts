import { quoteIdent } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { qualified, stripTrailingSemicolon } from '../sql-text.js';
import { auditQuery } from './compile.js';
import type { AuditSpec } from './spec.js';

export const FAILURES_SCHEMA = 'audit_failures';

/** The audit scope of an incremental build that processed nothing. */
export const NOTHING = 'false';

export interface AuditOutcome {
  name: string;
  type: string;
  severity: 'error' | 'warn';
  /** pass; warn (failed with severity warn); fail (failed with severity error, blocks downstream); error (did not run). */
  status: 'pass' | 'warn' | 'fail' | 'error';
  failures: number;
  message?: string;
  /** Where the failing rows were stored, when asked. */
  storedIn?: string;
}

/** Counts each audit's failing rows, compares with its threshold, stores the rows in audit_failures.* if asked. */
export async function runAudits(
  exec: Session,
  nodeId: string,
  relation: string,
  audits: AuditSpec[],
  options: { scope?: string; storeFailures: boolean },
): Promise<AuditOutcome[]> {
  const outcomes: AuditOutcome[] = [];
  for (const audit of audits) {
    if (options.scope === NOTHING) {
      // An incremental build that wrote no day has nothing new to check; the whole table is `vwh models test`'s job.
      outcomes.push({ name: audit.name, type: audit.type, severity: audit.severity, status: 'pass', failures: 0 });
      continue;
    }
    const query = auditQuery(audit, relation, options.scope);
    outcomes.push(
      await runFailingRowsQuery(exec, `${nodeId}__${audit.name}`, query, {
        name: audit.name,
        type: audit.type,
        severity: audit.severity,
        threshold: audit.threshold,
        store: audit.storeFailures || options.storeFailures,
      }),
    );
  }
  return outcomes;
}

export async function runFailingRowsQuery(
  exec: Session,
  storeName: string,
  query: string,
  audit: { name: string; type: string; severity: 'error' | 'warn'; threshold: number; store: boolean },
): Promise<AuditOutcome> {
  const base = { name: audit.name, type: audit.type, severity: audit.severity };
  let failures: number;
  try {
    failures = Number(await exec.scalar(`SELECT count(*) FROM (${stripTrailingSemicolon(query)}\n) AS f`));
  } catch (error) {
    return { ...base, status: 'error', failures: 0, message: (error as Error).message };
  }
  const failed = failures > audit.threshold;
  const outcome: AuditOutcome = {
    ...base,
    status: failed ? (audit.severity === 'error' ? 'fail' : 'warn') : 'pass',
    failures,
  };
  if (audit.store) {
    const table = qualified(FAILURES_SCHEMA, storeName.replace(/[^A-Za-z0-9_]/g, '_'));
    try {
      await exec.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(FAILURES_SCHEMA)}`);
      await exec.run(`CREATE OR REPLACE TABLE ${table} AS ${stripTrailingSemicolon(query)}`);
      outcome.storedIn = table.replace(/"/g, '');
    } catch (error) {
      // The count stands; only the copy of the rows is missing, and the message says why.
      outcome.message = `failing rows not stored: ${(error as Error).message}`;
    }
  }
  return outcome;
}
