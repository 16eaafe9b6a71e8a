/**
 * How a table is laid out in the lake: which Hive partition columns it gets and the SQL that yields its rows with
 * them. Facts (a `date` and a `project_id`) are partitioned team_id / project_id / month; the other tables by
 * team_id alone, so that writers of different teams never share a file; a table with neither has one file.
 */
import { createHash } from 'node:crypto';
import { quoteIdent } from '../core/sql.js';
import { type PortableColumn, portableColumns } from './portable-types.js';
import { type ExportTable, qualified } from './tables.js';

/** Hive's name for a null partition value, which Spark, Trino and DuckDB read back as null. */
export const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

export interface TableLayout {
  table: ExportTable;
  columns: PortableColumn[];
  partitionBy: string[];
  /** `select <portable columns>, <partition columns> from …`: the rows as written, partition values last. */
  sql: string;
  /** Hash of the written schema, mixed into every partition's content hash. */
  schemaHash: string;
}

/**
 * The project → team map for tables that have a project but no team column (a user's model: every shipped model
 * has one).
 */
const TEAM_OF_PROJECT = '(select distinct p.id as __project_id, p.team_id as __team_id from raw.projects p)';

export function layoutOf(table: ExportTable, hasProjectTeams: boolean): TableLayout {
  const names = new Set(table.columns.map((c) => c.name));
  const dateType = table.columns.find((c) => c.name === 'date')?.type;
  const columns = portableColumns(table.columns, 't');
  const hasTeam = names.has('team_id');
  const teamFromProject = !hasTeam && names.has('project_id') && hasProjectTeams;
  const team = hasTeam ? 't."team_id"' : teamFromProject ? 'p.__team_id' : undefined;
  const value = (expr: string) => `coalesce(CAST(${expr} AS VARCHAR), '${NULL_PARTITION}')`;

  const keys: [string, string][] = [];
  if (team) keys.push(['team_id', value(team)]);
  if (team && names.has('project_id') && dateType === 'DATE') {
    keys.push(['project_id', value('t."project_id"')]);
    keys.push(['month', value(`strftime(t."date", '%Y-%m')`)]);
  }
  const partitionBy = keys.map(([name]) => name);
  // Partition columns live in the path only (Spark refuses a column both in the files and in the path).
  const written = columns.filter((c) => !partitionBy.includes(c.name));
  const select = [...written.map((c) => c.expr), ...keys.map(([name, expr]) => `${expr} AS ${quoteIdent(name)}`)];
  const from = teamFromProject
    ? `${qualified(table)} t left join ${TEAM_OF_PROJECT} p on p.__project_id = t."project_id"`
    : `${qualified(table)} t`;
  const schemaHash = createHash('sha256')
    .update(JSON.stringify([written.map((c) => [c.name, c.type]), partitionBy]))
    .digest('hex')
    .slice(0, 16);
  return { table, columns: written, partitionBy, sql: `select ${select.join(', ')} from ${from}`, schemaHash };
}

/** The partition's folder relative to the table's: `team_id=a/project_id=b/month=2026-01` ('' when none). */
export function partitionPath(layout: TableLayout, values: string[]): string {
  return layout.partitionBy.map((name, i) => `${name}=${values[i]}`).join('/');
}

/** One row per partition: its values, rows and an order-independent fingerprint of its rows. */
export function partitionStatsSql(layout: TableLayout): string {
  const keys = layout.partitionBy.map(quoteIdent);
  const keyList = keys.length > 0 ? `${keys.join(', ')}, ` : '';
  // xor and sum of 64-bit row hashes, with the count: order-independent, and a changed, added or removed row
  // changes at least one of them (duplicated rows cancel in the xor but not in the sum or the count).
  return `select ${keyList}count(*) as n, CAST(bit_xor(hash(r)) AS VARCHAR) as x, CAST(sum(CAST(hash(r) AS HUGEINT)) AS VARCHAR) as s
    from (${layout.sql}) r ${keys.length > 0 ? `group by ${keys.join(', ')}` : ''}`;
}

export function partitionHash(layout: TableLayout, n: number, x: string, s: string): string {
  return createHash('sha256').update(`${layout.schemaHash}|${n}|${x}|${s}`).digest('hex').slice(0, 32);
}
