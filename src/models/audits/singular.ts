import type { Session } from '../../warehouse/session.js';
import { compileModel } from '../compile.js';
import { auditStatus, blocks, describeError, type NodeResult, type NodeStatus } from '../results.js';
import { substituteMacros } from '../sql-text.js';
import type { Project, SingularTest } from '../types.js';
import { runFailingRowsQuery } from './run.js';

/** A singular test (tests/*.sql): its rows are the failures; skipped when a model it reads failed. */
export async function runSingularTest(
  exec: Session,
  project: Project,
  test: SingularTest,
  results: Map<string, NodeResult>,
  storeFailures: boolean,
  /** The run's last day: `@end_date` in the test (`@start_date` is 1970-01-01). */
  end: string,
): Promise<NodeResult> {
  const blocker = test.parents.find((p) => blocks(results.get(p)?.status));
  const base = { id: test.id, type: 'test' as const, path: test.path, rowsAffected: null, audits: [] };
  if (blocker) {
    return {
      ...base,
      status: 'skipped',
      startedAt: new Date().toISOString(),
      durationMs: 0,
      message: `skipped: upstream ${blocker} failed`,
    };
  }
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const compiled = compileModel(project, test);
  const sql = substituteMacros(compiled.sql, { start_date: '1970-01-01', end_date: end });
  const outcome = await runFailingRowsQuery(exec, test.id.replace(/^test\./, 'test__'), sql, {
    name: test.id,
    type: 'singular',
    severity: test.severity,
    threshold: test.threshold,
    store: storeFailures,
  });
  const status: NodeStatus = auditStatus([outcome]);
  const message =
    outcome.status === 'error'
      ? describeError(test.path, new Error(outcome.message), test.sqlLine, compiled)
      : `${outcome.failures} failing row(s)`;
  return { ...base, status, startedAt, durationMs: performance.now() - t0, message, audits: [outcome] };
}
