import type { AuditOutcome } from './run.js';

/** True when an audit of severity error failed (or could not run): the model must not count as built. */
export function isBlocking(audits: AuditOutcome[]): boolean {
  return audits.some((a) => a.severity === 'error' && (a.status === 'fail' || a.status === 'error'));
}

/** Thrown by a materialization that audited a new version before making it live and found it wanting. */
export class AuditBlocked extends Error {
  constructor(readonly audits: AuditOutcome[]) {
    super(
      `audits failed on the new version, the previous one is kept: ${audits
        .filter((a) => a.status !== 'pass')
        .map((a) => `${a.name} (${a.failures} rows)`)
        .join(', ')}`,
    );
    this.name = 'AuditBlocked';
  }
}
