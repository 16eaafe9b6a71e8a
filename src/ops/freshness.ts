/**
 * Freshness per stream and project, like dbt's source freshness: the newest day the sync finished for every parent
 * of the project (from ops.sync_state: a project is as fresh as its stalest prompt), its age at `now` counted from
 * the end of that day, and `warn`/`error` past `warn_after`/`error_after`.
 */

import { type Age, ageMs, DEFAULT_FRESHNESS } from '../core/config.js';
import { addDays, dayToMs, msToDay } from '../core/days.js';
import type { Session } from '../warehouse/session.js';

export type FreshnessStatus = 'pass' | 'warn' | 'error';

export interface FreshnessRow {
  team_id: string;
  stream: string;
  /** The project, or `(team)` for team-level streams. */
  project_id: string;
  newest_day: string;
  age_hours: number;
  status: FreshnessStatus;
}

export interface FreshnessLimits {
  warn_after?: Age | undefined;
  error_after?: Age | undefined;
}

export async function freshness(session: Session, now: number, limits: FreshnessLimits = {}): Promise<FreshnessRow[]> {
  const warnMs = ageMs(limits.warn_after ?? DEFAULT_FRESHNESS.warn_after);
  const errorMs = ageMs(limits.error_after ?? DEFAULT_FRESHNESS.error_after);
  const hasPrompts =
    (await session.all("select 1 from duckdb_tables() where schema_name = 'raw' and table_name = 'prompts'")).length >
    0;
  const rows = await session.all<{ team_id: string; stream: string; project_id: string; newest: Date | string }>(
    `with per_parent as (
       select team_id, stream, parent_id, max(range_to) as newest from ops.sync_state group by all
     ), prompt_project as (
       ${hasPrompts ? 'select distinct team_id, id, project_id from raw.prompts' : 'select null as team_id, null as id, null as project_id where false'}
     )
     select p.team_id, p.stream,
            case when p.parent_id = 'team' then '(team)' else coalesce(pp.project_id, p.parent_id) end as project_id,
            min(p.newest) as newest
       from per_parent p left join prompt_project pp on pp.team_id = p.team_id and pp.id = p.parent_id
      group by all
      order by 1, 2, 3`,
  );
  return rows.map((r) => {
    const newest = typeof r.newest === 'string' ? r.newest.slice(0, 10) : msToDay(new Date(r.newest).getTime());
    const age = now - dayToMs(addDays(newest, 1));
    const status: FreshnessStatus = age > errorMs ? 'error' : age > warnMs ? 'warn' : 'pass';
    return {
      team_id: r.team_id,
      stream: r.stream,
      project_id: r.project_id,
      newest_day: newest,
      age_hours: Math.max(0, Math.round(age / 360_000) / 10),
      status,
    };
  });
}

export function worstFreshness(rows: readonly FreshnessRow[]): FreshnessStatus {
  if (rows.some((r) => r.status === 'error')) return 'error';
  if (rows.some((r) => r.status === 'warn')) return 'warn';
  return 'pass';
}
