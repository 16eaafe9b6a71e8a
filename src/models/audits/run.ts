import { quoteIdent } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { qualified, stripTrailingSemicolon } from '../sql-text.js';
import { auditQuery, auditsCountQuery } from './compile.js';
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

/**
 * Counts each audit's failing rows, compares with its threshold, stores the rows in audit_failures.* if asked. The
 * counts are one statement for all the model's audits (`auditsCountQuery`); when it fails (an audit's SQL that does
 * not bind, say), each audit runs on its own so that the error is the failing audit's and the others still count.
 */
export async function runAudits(
  exec: Session,
  nodeId: string,
  relation: string,
  audits: AuditSpec[],
  options: { scope?: string; storeFailures: boolean; view?: boolean },
): Promise<AuditOutcome[]> {
  if (options.scope === NOTHING) {
    // An incremental build that wrote no day has nothing new to check; the whole table is `vwh models test`'s job.
    return audits.map((a) => ({ ...named(a), status: 'pass', failures: 0 }));
  }
  const counts = audits.length > 1 ? await countAll(exec, audits, relation, options) : undefined;
  const outcomes: AuditOutcome[] = [];
  for (const [i, audit] of audits.entries()) {
    const query = auditQuery(audit, relation, options.scope);
    const spec = {
      name: audit.name,
      type: audit.type,
      severity: audit.severity,
      threshold: audit.threshold,
      store: audit.storeFailures || options.storeFailures,
    };
    const counted = counts?.[i];
    outcomes.push(
      counted === undefined
        ? await runFailingRowsQuery(exec, `${nodeId}__${audit.name}`, query, spec)
        : await judged(exec, `${nodeId}__${audit.name}`, query, spec, counted),
    );
  }
  return outcomes;
}

/** Every audit's failing rows counted in one statement, or undefined when that statement fails. */
async function countAll(
  exec: Session,
  audits: AuditSpec[],
  relation: string,
  options: { scope?: string; view?: boolean },
): Promise<number[] | undefined> {
  try {
    const [row] = await exec.all(auditsCountQuery(audits, relation, options.scope, options.view ?? false));
    return audits.map((_, i) => Number(row?.[`a${i}`]));
  } catch {
    return undefined;
  }
}

export async function runFailingRowsQuery(
  exec: Session,
  storeName: string,
  query: string,
  audit: FailingRowsCheck,
): Promise<AuditOutcome> {
  let failures: number;
  try {
    failures = Number(await exec.scalar(`SELECT count(*) FROM (${stripTrailingSemicolon(query)}\n) AS f`));
  } catch (error) {
    return { ...named(audit), status: 'error', failures: 0, message: (error as Error).message };
  }
  return judged(exec, storeName, query, audit, failures);
}

interface FailingRowsCheck {
  name: string;
  type: string;
  severity: 'error' | 'warn';
  threshold: number;
  store: boolean;
}

/** What an outcome says of the audit it is for. */
function named(
  audit: Pick<AuditOutcome, 'name' | 'type' | 'severity'>,
): Pick<AuditOutcome, 'name' | 'type' | 'severity'> {
  return { name: audit.name, type: audit.type, severity: audit.severity };
}

/** The outcome of `failures` failing rows against the threshold; the rows stored in audit_failures.* if asked. */
async function judged(
  exec: Session,
  storeName: string,
  query: string,
  audit: FailingRowsCheck,
  failures: number,
): Promise<AuditOutcome> {
  const failed = failures > audit.threshold;
  const outcome: AuditOutcome = {
    ...named(audit),
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
