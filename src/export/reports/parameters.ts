/**
 * A report's parameters as the user gave them, checked before any query runs: only those the report declares,
 * days that exist, a range in order, a project the warehouse knows. They are bound to the query, never spliced.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { shown, VwhError } from '../../core/errors.js';
import { DayRule } from '../../core/rules.js';
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
    const parsed = DayRule.safeParse(value);
    if (!parsed.success) throw new VwhError('USAGE', `${FLAG[name]} ${parsed.error.issues[0]?.message}.`);
  }
  if (byName.from && byName.to && byName.from > byName.to) {
    throw new VwhError('USAGE', `--from ${byName.from} is after --to ${byName.to}: give the earlier day first.`);
  }
  // a project by id or by name (as `vwh sync --projects` takes it); the query gets the id
  if (byName.project !== undefined) byName.project = await resolveProject(db, byName.project);
  const values: Record<string, DuckDBValue> = {};
  for (const [name, spec] of Object.entries(report.parameters))
    values[name] = byName[name as ParameterName] ?? spec.default;
  return { values, applied: byName };
}

/** The id of the project `given` names: its id, its exact name, or its name in another case when only one has it. */
async function resolveProject(db: Database, given: string): Promise<string> {
  const known = await db.session.all<{ project_id: string; name: string | null }>(
    'select id as project_id, any_value(name) as name from raw.projects group by id order by name, id',
  );
  const exact = known.find((p) => p.project_id === given) ?? known.find((p) => p.name === given);
  if (exact) return exact.project_id;
  const folded = known.filter((p) => p.name?.toLowerCase() === given.toLowerCase());
  if (folded.length === 1 && folded[0]) return folded[0].project_id;
  const list = known.map((p) => `${JSON.stringify(p.name ?? '')} (${p.project_id})`).join(', ');
  throw new VwhError(
    'USAGE',
    `${folded.length > 1 ? 'Ambiguous' : 'Unknown'} project ${shown(given)}: give a project's name or id. ` +
      `Projects in this warehouse: ${list || '(none)'}.`,
  );
}

/**
 * When --from or --to falls outside the days the warehouse has answers for (marts.brand_visibility_daily), what
 * range it has, so that an empty report is not read as "nothing happened"; undefined when inside, or unknown.
 */
export async function outsideDataNote(db: Database, given: ReportParameters): Promise<string | undefined> {
  if (given.from === undefined && given.to === undefined) return undefined;
  const has = await db.session.all(
    "select 1 from duckdb_tables() where schema_name = 'marts' and table_name = 'brand_visibility_daily'",
  );
  if (has.length === 0) return undefined;
  const range = await db.session.one<{ first: string | null; last: string | null }>(
    'select min(date)::varchar as first, max(date)::varchar as last from marts.brand_visibility_daily',
  );
  if (!range?.first || !range.last) return 'the warehouse has no answers yet (vwh run fills it)';
  const covers = `the data covers ${range.first}..${range.last}`;
  if (given.from !== undefined && given.from > range.last)
    return `--from ${given.from} is after the data's last day: ${covers}`;
  if (given.to !== undefined && given.to < range.first)
    return `--to ${given.to} is before the data's first day: ${covers}`;
  return undefined;
}
