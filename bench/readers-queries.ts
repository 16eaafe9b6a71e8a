/**
 * What the readers of the warehouse ask, as the readers bench times it and bench/test/readers-queries.test.ts checks it:
 * the seven named reports (sql/reports), the HTML report's own queries (src/export/html/data.ts) and a set of
 * typical dashboard queries, each one SQL text over `marts.*` (and `staging.projects`) that runs unchanged on the
 * published copy (the DuckDB file BI tools open) and on the Parquet lake (an in-memory DuckDB whose `marts.*` are
 * views over `read_parquet(…, hive_partitioning = true)`, as docs/lake.md tells a BI user to set it up).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../src/core/sql.js';
import { HTML_QUERIES } from '../src/export/html/data.js';
import type { LakeManifest } from '../src/export/lake/manifest.js';
import { loadReports } from '../src/export/reports/catalog.js';
import { loadMacros } from '../src/models/macros.js';

/** The days and the project one sample of a query asks about. */
export interface Question {
  /** null: every project (the account-wide questions). */
  project: string | null;
  /** The project's (or the account's) newest day in marts.brand_visibility_daily. */
  lastDay: string;
}

export interface ReaderQuery {
  name: string;
  kind: 'report' | 'html' | 'dashboard';
  /** 'project': one project's question (the bench's targets); 'account': every project at once. */
  scope: 'project' | 'account';
  sql: string;
  /** The values of its `$name` parameters for a question. */
  params(q: Question): Record<string, DuckDBValue>;
}

/** The provider of the "one provider" questions. */
export const PROVIDER = 'chatgpt';

/** `day` ± `n` days, as YYYY-MM-DD. */
function shift(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** The last calendar quarter that ends before `day`: [first day, last day]. */
export function lastFullQuarter(day: string): [string, string] {
  const [y, m] = day.split('-').map(Number) as [number, number];
  const startMonth = Math.floor((m - 1) / 3) * 3; // 0-based first month of day's quarter
  const end = shift(`${y}-${String(startMonth + 1).padStart(2, '0')}-01`, -1);
  const [ey, em] = end.split('-').map(Number) as [number, number];
  return [`${ey}-${String(em - 2).padStart(2, '0')}-01`, end];
}

/**
 * The dashboard questions a BI user asks of the marts. Each ends in an ORDER BY that is a total order of its rows,
 * so that two sources give the rows in one order.
 */
const DASHBOARDS: ReaderQuery[] = [
  {
    // a line chart: each tracked brand's daily visibility on one provider over a quarter
    name: 'quarter_one_provider',
    kind: 'dashboard',
    scope: 'project',
    sql: `select date, brand_id, any_value(brand_name) as brand_name, bool_or(is_own_brand) as is_own_brand,
       sum(responses)::bigint as responses, sum(mentions)::bigint as mentions,
       round(100 * sum(mentions) / sum(responses), 2) as visibility_pct
from marts.brand_visibility_daily
where project_id = $project and provider = $provider and date between $from::date and $to::date
group by date, brand_id
order by date, brand_id`,
    params: (q) => {
      const [from, to] = lastFullQuarter(q.lastDay);
      return { project: q.project, provider: PROVIDER, from, to };
    },
  },
  {
    // the competitor leaderboard: share of voice among tracked brands over the last 28 days, all providers pooled
    name: 'competitor_leaderboard',
    kind: 'dashboard',
    scope: 'project',
    sql: `select brand_key, any_value(brand_name order by date desc) as brand_name, bool_or(is_own_brand) as is_own_brand,
       sum(tracked_brand_responses)::bigint as mentions,
       round(100 * sum(tracked_brand_responses) / sum(sum(tracked_brand_responses)) over (), 2) as sov_pct
from marts.share_of_voice_daily
where project_id = $project and provider = 'all' and is_tracked and date between $from::date and $to::date
group by brand_key
order by mentions desc, brand_key`,
    params: (q) => ({ project: q.project, from: shift(q.lastDay, -27), to: q.lastDay }),
  },
  {
    // the 12-week trend: the own brand's weekly visibility per provider, counts summed before dividing
    name: 'trend_12_weeks',
    kind: 'dashboard',
    scope: 'project',
    sql: `select date_trunc('week', date)::date as week, provider, sum(responses)::bigint as responses,
       sum(mentions)::bigint as mentions, round(100 * sum(mentions) / sum(responses), 2) as visibility_pct
from marts.brand_visibility_daily
where project_id = $project and is_own_brand and date between $from::date and $to::date
group by week, provider
order by week, provider`,
    params: (q) => ({ project: q.project, from: shift(q.lastDay, -83), to: q.lastDay }),
  },
  {
    // the top cited domains over the last 28 days, all providers pooled
    name: 'top_cited_domains',
    kind: 'dashboard',
    scope: 'project',
    sql: `select domain, any_value(category_name) as category_name, sum(citing_responses)::bigint as citing_responses,
       sum(citations)::bigint as citations, sum(brand_mentioned_responses)::bigint as brand_mentioned_responses
from marts.source_domains_daily
where project_id = $project and provider = 'all' and date between $from::date and $to::date
group by domain
order by citing_responses desc, citations desc, domain
limit 20`,
    params: (q) => ({ project: q.project, from: shift(q.lastDay, -27), to: q.lastDay }),
  },
  {
    // the prompt table: each prompt's own-brand visibility and position over a quarter, all providers pooled
    name: 'prompts_quarter',
    kind: 'dashboard',
    scope: 'project',
    sql: `select prompt_id, any_value(prompt_content order by date desc) as prompt_content,
       sum(responses)::bigint as responses, sum(mentions)::bigint as mentions,
       round(100 * sum(mentions) / sum(responses), 2) as visibility_pct,
       round(sum(position_sum) / nullif(sum(position_n), 0), 2) as avg_position
from marts.prompt_performance_daily
where project_id = $project and provider = 'all' and date between $from::date and $to::date
group by prompt_id
order by visibility_pct desc, prompt_id`,
    params: (q) => {
      const [from, to] = lastFullQuarter(q.lastDay);
      return { project: q.project, from, to };
    },
  },
  {
    // the agency's overview: every project's own-brand visibility over the last 28 days
    name: 'account_overview',
    kind: 'dashboard',
    scope: 'account',
    sql: `select project_id, sum(responses)::bigint as responses, sum(mentions)::bigint as mentions,
       round(100 * sum(mentions) / sum(responses), 2) as visibility_pct
from marts.brand_visibility_daily
where is_own_brand and provider = 'all' and date between $from::date and $to::date
group by project_id
order by project_id`,
    params: (q) => ({ from: shift(q.lastDay, -27), to: q.lastDay }),
  },
];

/** Every query the bench times: reports (one project, then every project), the HTML report's, the dashboards'. */
export function readerQueries(): ReaderQuery[] {
  const reports: ReaderQuery[] = [];
  for (const scope of ['project', 'account'] as const) {
    for (const report of loadReports().values()) {
      reports.push({
        name: `report_${report.name}${scope === 'account' ? '_all' : ''}`,
        kind: 'report',
        scope,
        sql: report.sql,
        // as `vwh report NAME [--project P]` binds them: the project or null, every other parameter its default
        params: (q) =>
          Object.fromEntries(
            Object.entries(report.parameters).map(([name, spec]) => [
              name,
              name === 'project' && scope === 'project' ? q.project : spec.default,
            ]),
          ),
      });
    }
  }
  const html: ReaderQuery[] = Object.entries(HTML_QUERIES).map(([name, sql]) => ({
    name: `html_${name}`,
    kind: 'html',
    scope: 'project',
    sql,
    params: (q) => ({ project: q.project, from: null, to: null }),
  }));
  // DuckDB refuses a value for a parameter the statement does not have
  return [...reports, ...html, ...DASHBOARDS].map((query) => ({
    ...query,
    params: (q) =>
      Object.fromEntries(Object.entries(query.params(q)).filter(([name]) => query.sql.includes(`$${name}`))),
  }));
}

/**
 * The statements that make an in-memory DuckDB read the lake at `lakeDir` as the warehouse's schemas: one view per
 * table of the lake's manifest over its Parquet files with Hive partitioning (a table without files: an empty view of
 * the manifest's columns), and the models' macros (wilson_low, share_low, …) the reports call.
 */
export function lakeViewsSql(lakeDir: string, modelsDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(lakeDir, '_manifest.json'), 'utf8')) as LakeManifest;
  const statements: string[] = ["SET TimeZone = 'UTC'"];
  const schemas = new Set<string>();
  for (const [key, table] of Object.entries(manifest.tables)) {
    const [schema, name] = key.split('.') as [string, string];
    if (!schemas.has(schema)) statements.push(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    schemas.add(schema);
    const glob = join(lakeDir, table.path, '**', '*.parquet');
    const body =
      table.files > 0
        ? `SELECT * FROM read_parquet(${quoteLiteral(glob)}, hive_partitioning = true)`
        : `SELECT ${[
            ...table.columns.map((c) => `CAST(NULL AS ${c.type}) AS ${quoteIdent(c.name)}`),
            ...table.partition_by.map((p) => `CAST(NULL AS VARCHAR) AS ${quoteIdent(p)}`),
          ].join(', ')} WHERE false`;
    statements.push(`CREATE VIEW ${quoteIdent(schema)}.${quoteIdent(name)} AS ${body}`);
  }
  for (const macro of loadMacros(modelsDir)) statements.push(macro.sql);
  return statements;
}
