/**
 * How a table is laid out in the lake: which Hive partition columns it gets and the SQL that yields its rows with
 * them. Facts (a `date` and a `project_id`) are partitioned team_id / month; the other tables by
 * team_id alone, so that writers of different teams never share a file; a table with neither has one file.
 */
import { createHash } from 'node:crypto';
import { quoteIdent } from '../../core/sql.js';
import { type PortableColumn, portableColumns } from '../portable-types.js';
import { type ExportTable, qualified } from '../tables.js';
import { enumKeys, type PartitionKey } from './keys.js';

/** Hive's name for a null partition value, which Spark, Trino and DuckDB read back as null. */
export const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

export interface TableLayout {
  table: ExportTable;
  columns: PortableColumn[];
  partitionBy: string[];
  /** `select <portable columns>, <partition columns> from …`: the rows as written, partition values last. */
  sql: string;
  /**
   * `select <partition values>, count, xor and sum of the row hashes group by partition`: the partitions' content
   * fingerprints (partitionStatsSql), of the rows `where` selects (all when none).
   */
  statsSql: (where?: string) => string;
  /** The month column's DATE (`t."date"`), when the table is partitioned by month. */
  date?: string;
  /** Hash of the written schema, mixed into every partition's content hash. */
  schemaHash: string;
  /** The written columns' select expressions, the partition keys and the FROM clause (writeSql). */
  written: string[];
  keys: PartitionKey[];
  from: string;
  /** Its team comes from raw.projects (joined in `from`), whose rows decide its partitions too. */
  readsProjects: boolean;
  /**
   * Each month partition is written as one file per slot of its days (SLOT_DAYS), `part-<slot>.parquet`, so that a
   * night rewrites the file of its days rather than the month's: the slot is the last of `keys` and `keyNames`, not
   * a Hive key (not in `partitionBy`, not in the path).
   */
  slots: boolean;
  /** Every key the rows are grouped by: `partitionBy`, then the slot when `slots`. */
  keyNames: string[];
}

/**
 * The days of a month a slot file holds when a table's months are split (`slots`): 1-8, 9-16, 17-24 and 25-31. A
 * night that rebuilt its last days rewrites one file of a quarter of the month (two at a slot's edge), not the
 * month's file (docs/lake.md, "Partition layout").
 */
export const SLOT_DAYS = 8;
/** The slot of a month's last days (25-31 with 8-day slots). */
export const LAST_SLOT = Math.floor((31 - 1) / SLOT_DAYS);
/** The slot key's name while rows are grouped and staged (a staging folder `__slot=N`; never in the lake). */
export const SLOT_KEY = '__slot';

/**
 * The project → team map for tables that have a project but no team column (a user's model: every shipped model
 * has one).
 */
const TEAM_OF_PROJECT = '(select distinct p.id as __project_id, p.team_id as __team_id from raw.projects p)';

export function layoutOf(table: ExportTable, hasProjectTeams: boolean, split = false): TableLayout {
  const names = new Set(table.columns.map((c) => c.name));
  const dateType = table.columns.find((c) => c.name === 'date')?.type;
  const columns = portableColumns(table.columns, 't');
  const hasTeam = names.has('team_id');
  const teamFromProject = !hasTeam && names.has('project_id') && hasProjectTeams;
  const team = hasTeam ? 't."team_id"' : teamFromProject ? 'p.__team_id' : undefined;
  const text = (expr: string) => `coalesce(CAST(${expr} AS VARCHAR), '${NULL_PARTITION}')`;

  // Each partition column: its value as text (the folder name) and a cheaper key with the same groups (the month's
  // first day rather than its text), which the content hashes group by before they format the ~hundred values.
  const keys: (PartitionKey & { key: string; fromKey: string })[] = [];
  const key = (name: string, expr: string, keyExpr = expr, format = (k: string) => text(k), date?: string) =>
    keys.push({ name, expr: text(expr), key: keyExpr, fromKey: format(quoteIdent(`__key_${name}`)), date });
  if (team) key('team_id', team);
  // Facts by team and month, not also by project: at an agency's size (10 projects) a project's month of the largest
  // mart is a small file, and thousands of them made the export several times a single-file COPY of the same rows
  // (docs/lab/2026-11-export-lake.md); project_id stays a column of the files.
  if (team && names.has('project_id') && dateType === 'DATE') {
    // The month's first day as a DATE, ±infinity kept (they group as the write's 'infinity' folders do): date_trunc,
    // which goes through TIMESTAMP, made the content-hash pass slower (docs/lab/2026-11-code-constants.md#the-exports).
    key(
      'month',
      `strftime(t."date", '%Y-%m')`,
      `coalesce(t."date" - CAST(day(t."date") - 1 AS INTEGER), t."date")`,
      (k) => text(`strftime(${k}, '%Y-%m')`),
      't."date"',
    );
  }
  const partitionBy = keys.map((k) => k.name);
  // the slot of the day in its month (days 1-31: 0-3; a null date's rows are slot 0), after the Hive keys
  const slots = split && keys.some((k) => k.date);
  if (slots) {
    const slot = `coalesce(CAST((day(t."date") - 1) // ${SLOT_DAYS} AS TINYINT), CAST(0 AS TINYINT))`;
    keys.push({
      name: SLOT_KEY,
      expr: `CAST(${slot} AS VARCHAR)`,
      key: slot,
      fromKey: `CAST(${quoteIdent(`__key_${SLOT_KEY}`)} AS VARCHAR)`,
      integer: slot,
    });
  }
  // Partition columns live in the path only (Spark refuses a column both in the files and in the path).
  const written = columns.filter((c) => !partitionBy.includes(c.name));
  const select = [...written.map((c) => c.expr), ...keys.map((k) => `${k.expr} AS ${quoteIdent(k.name)}`)];
  const from = teamFromProject
    ? `${qualified(table)} t left join ${TEAM_OF_PROJECT} p on p.__project_id = t."project_id"`
    : `${qualified(table)} t`;
  const schemaHash = createHash('sha256')
    .update(
      JSON.stringify([
        HASH_VERSION,
        written.map((c) => [c.name, c.type, c.sourceType]),
        partitionBy,
        // a table whose months become slot files is rewritten whole, once (every partition's hash changes)
        ...(slots ? [SLOT_DAYS] : []),
      ]),
    )
    .digest('hex')
    .slice(0, 16);
  return {
    table,
    columns: written,
    partitionBy,
    sql: `select ${select.join(', ')} from ${from}`,
    statsSql: (where?: string) => statsSql(keys, written, where ? `${from} where ${where}` : from),
    ...(keys.some((k) => k.date) ? { date: 't."date"' } : {}),
    schemaHash,
    written: written.map((c) => c.expr),
    keys: keys.map(({ name, expr, date, integer }) => ({ name, expr, date, ...(integer ? { integer } : {}) })),
    from,
    readsProjects: teamFromProject,
    slots,
    keyNames: keys.map((k) => k.name),
  };
}

/**
 * `layout.sql` for the write: the same rows, the partition keys typed as ENUMs of `partitions`' values (every
 * partition of the table, lake/keys.ts), which DuckDB's partitioned COPY groups by for less than their text.
 */
export function writeSql(layout: TableLayout, partitions: string[][], where?: string): string {
  const rows = `select ${[...layout.written, ...enumKeys(layout.keys, partitions)].join(', ')} from ${layout.from}`;
  return where ? `${rows} where ${where}` : rows;
}

/**
 * The rows of the months `first` to `last` (`YYYY-MM`, both included) as a condition on the raw date column, which
 * DuckDB checks against each row group's zonemap: a scan of the rows of a few months reads only their row groups.
 */
export function monthsWhere(layout: TableLayout, first: string, last: string): string | undefined {
  if (!layout.date) return undefined;
  return `${layout.date} >= DATE '${first}-01' AND ${layout.date} < DATE '${monthAfter(last)}-01'`;
}

/** The month after `month` (`YYYY-MM`). */
export function monthAfter(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12
    ? `${String(y + 1).padStart(4, '0')}-01`
    : `${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}`;
}

/**
 * Changes whenever the content hash is computed differently, so that a lake written by an older version is
 * rewritten once rather than compared with hashes that mean something else. 2: the row hash is taken over the
 * warehouse's values (not the cast ones) and grouped by the raw partition keys.
 */
const HASH_VERSION = 2;

/**
 * One row per partition: its values, rows and an order-independent fingerprint of its rows. The row hash is DuckDB's
 * `hash()` of the written columns' warehouse values: the casts to portable types are functions of those values (the
 * schema, in the hash too, says which), so hashing before them fingerprints the same content for a fraction of the
 * time (the casts, a struct of the whole row and three text keys per row cost several times the hash itself:
 * docs/lab/2026-11-code-constants.md#the-exports). xor and sum of
 * the 64-bit row hashes, with the count: a changed, added or removed row changes at least one of them (duplicated
 * rows cancel in the xor but not in the sum or the count).
 */
function statsSql(
  keys: { name: string; key: string; fromKey: string }[],
  written: PortableColumn[],
  from: string,
): string {
  const idents = written.map((c) => `t.${quoteIdent(c.name)}`);
  const rowHash = idents.length > 0 ? `hash(${idents.join(', ')})` : 'CAST(0 AS UBIGINT)';
  const inner = [...keys.map((k) => `${k.key} AS ${quoteIdent(`__key_${k.name}`)}`), `${rowHash} AS __h`];
  const groups = keys.map((k) => quoteIdent(`__key_${k.name}`));
  const grouped = `select ${[...groups, 'count(*) AS n', 'bit_xor(__h) AS x', 'sum(CAST(__h AS HUGEINT)) AS s'].join(', ')}
    from (select ${inner.join(', ')} from ${from}) ${groups.length > 0 ? `group by ${groups.join(', ')}` : ''}`;
  const outer = [
    ...keys.map((k) => `${k.fromKey} AS ${quoteIdent(k.name)}`),
    'n',
    'CAST(x AS VARCHAR) AS x',
    'CAST(s AS VARCHAR) AS s',
  ];
  return `select ${outer.join(', ')} from (${grouped})`;
}

/** The partition's folder relative to the table's: `team_id=a/month=2026-01` ('' when none). */
export function partitionPath(layout: TableLayout, values: string[]): string {
  return layout.partitionBy.map((name, i) => `${name}=${values[i]}`).join('/');
}

/** One row per partition: its values, rows and an order-independent fingerprint of its rows (statsSql). */
export function partitionStatsSql(layout: TableLayout, where?: string): string {
  return layout.statsSql(where);
}

export function partitionHash(layout: TableLayout, n: number, x: string, s: string): string {
  return createHash('sha256').update(`${layout.schemaHash}|${n}|${x}|${s}`).digest('hex').slice(0, 32);
}
