/**
 * What the HTML report shows, per project: the named reports' rows (so the page and the CSVs agree) and two
 * aggregates the reports do not have (visibility per provider over the range, gaps per competitor).
 */

import type { Database } from '../../warehouse/duckdb.js';
import { DuckDBTypeId } from '../../warehouse/duckdb-api.js';
import { findReport, loadReports } from '../reports/catalog.js';
import { type Plain, plainValue } from '../reports/formats.js';
import type { ReportParameters } from '../reports/parameters.js';
import { runReport } from '../reports/run.js';

export type Row = Record<string, Plain>;

export interface ProjectData {
  projectId: string;
  name: string;
  brandName: string;
  weekly: Row[];
  shareOfVoice: Row[];
  providers: Row[];
  sourceOpportunities: Row[];
  /** The project's newest day with answers in the warehouse (the source window may be the API's, ending later). */
  answersThrough: string | null;
  promptOpportunities: Row[];
  gaps: Row[];
  actions: Row[];
  /** marts.action_verdicts' rows of the project (the shrunk effects), in completion order. */
  verdicts: Row[];
  /** marts.action_impact_by_category's rows of the project's team: each category, then the portfolio ('all'). */
  categories: Row[];
  /** The changes report's rows (since yesterday, this week, this month), every provider, in its order. */
  changes: Row[];
}

export interface ReportData {
  projects: ProjectData[];
  /**
   * First and newest day with answers in the range, and the sync run the data comes from: the page's date line
   * (never the clock).
   */
  dataFrom: string | null;
  dataThrough: string | null;
  syncRun: string | null;
}

/** How many bars the ranked charts show. */
export const TOP = 10;

async function rows(db: Database, sql: string, params: Record<string, string | null>): Promise<Row[]> {
  // DuckDB refuses a value for a parameter the statement does not have
  const used = Object.fromEntries(Object.entries(params).filter(([name]) => sql.includes(`$${name}`)));
  const reader = await db.connection.runAndReadAll(sql, used);
  const columns = reader.columnNames();
  const types = reader.columnTypes().map((t) => t.typeId);
  return reader
    .getRowsJS()
    .map((r) => Object.fromEntries(columns.map((c, i) => [c, plainValue(r[i], types[i] ?? DuckDBTypeId.VARCHAR)])));
}

async function reportRows(db: Database, name: string, params: ReportParameters): Promise<Row[]> {
  const report = findReport(name, loadReports());
  const result = await runReport(
    db,
    report,
    Object.fromEntries(
      Object.entries(params).filter(([k]) => report.parameters[k === 'projectId' ? 'project' : (k as 'from' | 'to')]),
    ),
  );
  return result.rows.map((r) =>
    Object.fromEntries(result.columns.map((c, i) => [c, plainValue(r[i], result.typeIds[i] ?? DuckDBTypeId.VARCHAR)])),
  );
}

const PROVIDERS_SQL = `
with own_and_top as (
  -- The own brand and the three competitors named in the largest share of answers, each over the days it was
  -- tracked: a competitor tracked for part of the range has fewer answers behind it, not a smaller share.
  select brand_id from marts.brand_visibility_daily
  where project_id = $project and provider = 'all'
    and ($from is null or date >= $from::date) and ($to is null or date <= $to::date)
  group by brand_id
  order by bool_or(is_own_brand) desc, sum(mentions) / sum(responses) desc, brand_id
  limit 4
)
select provider, any_value(brand_name order by date desc) as brand_name, bool_or(is_own_brand) as is_own_brand,
       sum(responses)::bigint as responses, sum(mentions)::bigint as mentions,
       round(100 * sum(mentions) / sum(responses), 2) as visibility_pct,
       round(100 * wilson_low(sum(mentions), sum(responses)), 2) as ci_low,
       round(100 * wilson_high(sum(mentions), sum(responses)), 2) as ci_high
from marts.brand_visibility_daily
where project_id = $project and brand_id in (select brand_id from own_and_top)
  and ($from is null or date >= $from::date) and ($to is null or date <= $to::date)
group by provider, brand_id
order by provider = 'all', provider, is_own_brand desc, brand_name`;

const GAPS_SQL = `
select any_value(competitor_name) as competitor_name, sum(gap_responses)::bigint as gap_responses, sum(responses)::bigint as responses,
       count(*)::bigint as prompts,
       round(100 * sum(gap_responses) / sum(responses), 2) as gap_pct,
       round(100 * wilson_low(sum(gap_responses), sum(responses)), 2) as ci_low,
       round(100 * wilson_high(sum(gap_responses), sum(responses)), 2) as ci_high
from marts.competitor_gaps
where project_id = $project and provider = 'all'
group by competitor_id
order by gap_pct desc, competitor_name, competitor_id
limit ${TOP}`;

const ACTIONS_SQL = `
select action_id, title, strftime(completed_at, '%Y-%m-%d') as completed_on, status,
       (before_to - before_from + 1)::bigint as before_days, (after_to - after_from + 1)::bigint as after_days,
       (after_from - cast(completed_at as date))::bigint as ramp_days,
       before_responses, before_mentions, after_responses, after_mentions,
       round(before_visibility_pct, 2) as before_pct,
       round(100 * wilson_low(before_mentions, before_responses), 2) as before_ci_low,
       round(100 * wilson_high(before_mentions, before_responses), 2) as before_ci_high,
       round(after_visibility_pct, 2) as after_pct,
       round(100 * wilson_low(after_mentions, after_responses), 2) as after_ci_low,
       round(100 * wilson_high(after_mentions, after_responses), 2) as after_ci_high,
       round(control_delta_pp, 1) as control_delta_pp,
       round(before_visibility_pct + control_delta_pp, 2) as without_pct
from marts.action_impact
where project_id = $project and status = 'measured'
  and ($from is null or completed_at::date >= $from::date) and ($to is null or completed_at::date <= $to::date)
order by completed_at, action_id`;

const VERDICTS_SQL = `
select v.title, v.category, v.action_id, strftime(i.completed_at, '%Y-%m-%d') as completed_on, v.method,
       round(v.effect_pp, 1) as effect_pp, round(v.effect_ci_low_pp, 1) as ci_low, round(v.effect_ci_high_pp, 1) as ci_high,
       round(v.unpooled_effect_pp, 1) as unpooled_pp, round(v.unpooled_ci_low_pp, 1) as unpooled_low,
       round(v.unpooled_ci_high_pp, 1) as unpooled_high, v.expected_impact_min, v.expected_impact_max, v.vs_expected,
       v.p_positive, v.p_within_expected, v.days_to_decide
from marts.action_verdicts v
join marts.action_impact i on i.team_id = v.team_id and i.action_id = v.action_id
where v.project_id = $project
  and ($from is null or i.completed_at::date >= $from::date) and ($to is null or i.completed_at::date <= $to::date)
order by i.completed_at, v.action_id`;

const CATEGORIES_SQL = `
select c.category, c.n_actions, round(c.effect_pp, 1) as effect_pp, round(c.effect_ci_low_pp, 1) as ci_low,
       round(c.effect_ci_high_pp, 1) as ci_high, c.expected_impact_min, c.expected_impact_max, c.vs_expected,
       c.p_positive, c.p_within_expected
from marts.action_impact_by_category c
where c.team_id in (select team_id from marts.action_impact where project_id = $project)
order by c.category = 'all', c.category`;

/** The page's own queries (beside the named reports' rows), by name: what the readers bench times (bench/readers). */
export const HTML_QUERIES = {
  providers: PROVIDERS_SQL,
  gaps: GAPS_SQL,
  actions: ACTIONS_SQL,
  verdicts: VERDICTS_SQL,
  categories: CATEGORIES_SQL,
} as const;

export async function loadReportData(db: Database, params: ReportParameters): Promise<ReportData> {
  const projects = await rows(
    db,
    `select p.id as project_id, arg_max(p.name, p._extracted_at) as name,
            arg_max(p.brand_name, p._extracted_at) as brand_name,
            (select strftime(max(d.date), '%Y-%m-%d') from marts.brand_visibility_daily d where d.project_id = p.id)
              as answers_through
       from raw.projects p where $project is null or p.id = $project group by p.id order by name, p.id`,
    { project: params.projectId ?? null },
  );
  const [tables] = await rows(
    db,
    `select count(*)::bigint as n from information_schema.tables
      where table_schema = 'marts' and table_name in ('action_verdicts', 'action_impact_by_category')`,
    {},
  );
  const hasVerdicts = Number(tables?.n ?? 0) === 2;
  const out: ProjectData[] = [];
  for (const project of projects) {
    const projectId = String(project.project_id);
    const p = { ...params, projectId };
    const bound = { project: projectId, from: params.from ?? null, to: params.to ?? null };
    const actionRows = await rows(db, ACTIONS_SQL, bound);
    // the estimate's columns follow the mart (effect_pp from a causal estimator, else delta_pp)
    const estimates = new Map((await reportRows(db, 'action_impact', p)).map((r) => [r.action_id, r]));
    out.push({
      projectId,
      name: String(project.name ?? projectId),
      brandName: String(project.brand_name ?? ''),
      weekly: (await reportRows(db, 'weekly_visibility', p)).filter((r) => r.provider === 'all'),
      shareOfVoice: (await reportRows(db, 'share_of_voice', p)).filter((r) => r.provider === 'all').slice(0, TOP),
      providers: await rows(db, PROVIDERS_SQL, bound),
      sourceOpportunities: (await reportRows(db, 'source_opportunities', p)).slice(0, TOP),
      answersThrough: (project.answers_through as string | null) ?? null,
      // the win list only: prompts whose answers name a competitor more often than the brand
      promptOpportunities: (await reportRows(db, 'prompt_opportunities', p))
        .filter((r) => r.provider === 'all' && r.list === 'win')
        .slice(0, TOP),
      gaps: await rows(db, GAPS_SQL, bound),
      // a warehouse built before marts.action_verdicts existed has no verdicts: the section says so
      verdicts: hasVerdicts ? await rows(db, VERDICTS_SQL, bound) : [],
      categories: hasVerdicts ? await rows(db, CATEGORIES_SQL, bound) : [],
      changes: await reportRows(db, 'changes', p),
      actions: actionRows.map((a) => {
        const e = estimates.get(a.action_id) ?? {};
        return {
          ...a,
          effect_pp: e.effect_pp ?? e.delta_pp ?? null,
          effect_ci_low_pp: e.effect_ci_low_pp ?? e.delta_ci_low_pp ?? null,
          effect_ci_high_pp: e.effect_ci_high_pp ?? e.delta_ci_high_pp ?? null,
          vs_expected: e.vs_expected ?? null,
        };
      }),
    });
  }
  const [meta] = await rows(
    db,
    `select (select strftime(min(date), '%Y-%m-%d') from marts.brand_visibility_daily
              where ($project is null or project_id = $project) and ($from is null or date >= $from::date)) as data_from,
            (select strftime(max(date), '%Y-%m-%d') from marts.brand_visibility_daily
              where ($project is null or project_id = $project) and ($to is null or date <= $to::date)) as data_through,
            (select max_by(run_id, ended_at) from ops.sync_runs where ended_at is not null) as sync_run`,
    { project: params.projectId ?? null, from: params.from ?? null, to: params.to ?? null },
  );
  return {
    projects: out,
    dataFrom: (meta?.data_from as string | null) ?? null,
    dataThrough: (meta?.data_through as string | null) ?? null,
    syncRun: (meta?.sync_run as string | null) ?? null,
  };
}
