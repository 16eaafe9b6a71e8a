/**
 * A report's parameters as the user gave them, checked before any query runs: only those the report declares,
 * days that exist, a range in order, a project the warehouse knows. They are bound to the query, never spliced.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { VwhError } from '../../core/errors.js';
import { Day } from '../../core/inputs.js';
import type { Database } from '../../warehouse/duckdb.js';
import type { ParameterName, Report } from './catalog.js';

export interface ReportParameters {
  projectId?: string;
  from?: string;
  to?: string;
}

const FLAG: Record<ParameterName, string> = { project: '--project', from: '--from', to: '--to' };

export interface BoundParameters {
  /** Text or null; DuckDB casts each to the type its comparison asks for (DATE for days). */
  values: Record<string, DuckDBValue>;
  /** What was applied, for the report's header (markdown) and logs. */
  applied: Partial<Record<ParameterName, string>>;
}

export async function bindParameters(db: Database, report: Report, given: ReportParameters): Promise<BoundParameters> {
  // Conditional spreads: the keys of byName are the parameters given (checked, and returned as applied).
  const byName: Partial<Record<ParameterName, string>> = {
    ...(given.projectId !== undefined ? { project: given.projectId } : {}),
    ...(given.from !== undefined ? { from: given.from } : {}),
    ...(given.to !== undefined ? { to: given.to } : {}),
  };
  for (const name of Object.keys(byName) as ParameterName[]) {
    if (!report.parameters[name]) {
      const takes = Object.keys(report.parameters).map((p) => FLAG[p as ParameterName]);
      throw new VwhError(
        'USAGE',
        `The report ${report.name} takes no ${FLAG[name]}` +
          (takes.length > 0 ? ` (it takes ${takes.join(', ')}).` : ' (it takes no parameters).'),
      );
    }
  }
  for (const name of ['from', 'to'] as const) {
    const value = byName[name];
    if (value === undefined) continue;
    const parsed = Day.safeParse(value);
    if (!parsed.success) throw new VwhError('USAGE', `${FLAG[name]} ${parsed.error.issues[0]?.message}.`);
  }
  if (byName.from && byName.to && byName.from > byName.to) {
    throw new VwhError('USAGE', `--from ${byName.from} is after --to ${byName.to}: give the earlier day first.`);
  }
  if (byName.project !== undefined) await checkProject(db, byName.project);
  const values: Record<string, DuckDBValue> = {};
  for (const [name, spec] of Object.entries(report.parameters))
    values[name] = byName[name as ParameterName] ?? spec.default;
  return { values, applied: byName };
}

async function checkProject(db: Database, projectId: string): Promise<void> {
  const known = await db.session.all<{ project_id: string }>(
    `select distinct id as project_id from raw.projects order by id`,
  );
  if (!known.some((p) => p.project_id === projectId)) {
    throw new VwhError(
      'USAGE',
      `Unknown project ${JSON.stringify(projectId)}. Projects in this warehouse: ${known.map((p) => p.project_id).join(', ') || '(none)'}.`,
    );
  }
}
