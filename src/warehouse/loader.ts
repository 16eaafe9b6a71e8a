import { BOOLEAN, DOUBLE, DuckDBDataChunk, type DuckDBType, type DuckDBValue, VARCHAR } from '@duckdb/node-api';
import { dbError, type Session } from './session.js';

/** A row for one raw table: column → JS value (scalars, Dates, arrays and objects for list and JSON columns). */
export type RawRow = Record<string, unknown>;

/**
 * Which rows of the target a unit replaces: `team_id` and the `equals` columns (NULL-safe), and, for day-partitioned
 * tables, `between` a date column's inclusive range.
 */
export interface Partition {
  equals: Record<string, string | null | undefined>;
  between?: { column: string; from: string; to: string };
}

export interface TableLoad {
  /** `schema.table`, e.g. `raw.chats`. */
  table: string;
  partition: Partition;
  rows: RawRow[];
}

/** Columns every raw row gets from the run rather than from the API. */
export interface RunColumns {
  team_id: string;
  _sync_run_id: string;
  _extracted_at: Date;
}

type WireKind = 'text' | 'number' | 'boolean';

interface TargetColumn {
  name: string;
  type: string;
  wire: WireKind;
  /** SQL expression turning the staged value into the target type. */
  cast: string;
}

interface TargetTable {
  table: string;
  staging: string;
  columns: TargetColumn[];
  types: DuckDBType[];
  types_by_name: Record<string, string>;
}

const CHUNK_ROWS = 2048;

/**
 * The bulk loader. Rows go through DuckDB's appender, as data chunks, into a TEMP staging table with the target's
 * columns in "wire" types (text, double, boolean); then ONE transaction deletes the target's partition, inserts
 * the staged rows with casts to the target types, and runs the caller's state update. Never row-by-row INSERTs.
 */
export class Loader {
  private readonly tables = new Map<string, TargetTable>();
  /** Units load one at a time: they share the staging tables. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly session: Session) {}

  /**
   * Stages every load, then commits them with `inTransaction` (the unit's state update) atomically.
   * Returns the rows inserted per table.
   */
  loadUnit(
    loads: TableLoad[],
    run: RunColumns,
    inTransaction?: (counts: Record<string, number>) => Promise<void>,
  ): Promise<Record<string, number>> {
    const next = this.tail.then(
      () => this.loadNow(loads, run, inTransaction),
      () => this.loadNow(loads, run, inTransaction),
    );
    this.tail = next.catch(() => {});
    return next;
  }

  private async loadNow(
    loads: TableLoad[],
    run: RunColumns,
    inTransaction?: (counts: Record<string, number>) => Promise<void>,
  ): Promise<Record<string, number>> {
    // Loads of the same table (two partitions of one unit) share one staging table: staged together.
    const byTable = new Map<string, { partitions: Partition[]; rows: RawRow[] }>();
    for (const load of loads) {
      const entry = byTable.get(load.table) ?? { partitions: [], rows: [] };
      entry.partitions.push(load.partition);
      entry.rows.push(...load.rows);
      byTable.set(load.table, entry);
    }
    const staged: Array<{ table: string; partitions: Partition[]; target: TargetTable }> = [];
    for (const [table, entry] of byTable) {
      const target = await this.target(table);
      await this.stage(target, entry.rows, run);
      staged.push({ table, partitions: entry.partitions, target });
    }
    const counts: Record<string, number> = {};
    let callerError: { error: unknown } | undefined;
    try {
      await this.session.transaction(async () => {
        for (const { table, partitions, target } of staged) {
          for (const partition of partitions) {
            const { where, params } = partitionPredicate(partition, run.team_id, target.types_by_name);
            await this.session.run(`DELETE FROM ${table} WHERE ${where}`, params);
          }
          const names = target.columns.map((c) => quoteIdent(c.name)).join(', ');
          const casts = target.columns.map((c) => c.cast).join(', ');
          counts[table] = await this.session.run(
            `INSERT INTO ${table} (${names}) SELECT ${casts} FROM ${target.staging}`,
          );
        }
        if (inTransaction) {
          try {
            await inTransaction(counts);
          } catch (error) {
            callerError = { error };
            throw error;
          }
        }
      });
    } catch (error) {
      // The caller's own failure (its state update, a test's simulated crash) passes through unchanged.
      if (callerError) throw callerError.error;
      throw dbError(`Loading ${[...byTable.keys()].join(', ')} failed`, error);
    }
    return counts;
  }

  private async stage(target: TargetTable, rows: RawRow[], run: RunColumns): Promise<void> {
    await this.session.run(`DELETE FROM ${target.staging}`);
    if (rows.length === 0) return;
    await this.session.exclusive(async () => {
      const appender = await this.session.connection.createAppender(
        target.staging.replace(/^temp\.main\./, ''),
        'main',
        'temp',
      );
      try {
        for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
          const slice = rows.slice(start, start + CHUNK_ROWS);
          const chunk = DuckDBDataChunk.create(target.types, slice.length);
          chunk.setColumns(target.columns.map((column) => slice.map((row) => toWire(column, row, run))));
          appender.appendDataChunk(chunk);
        }
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
    });
  }

  private async target(table: string): Promise<TargetTable> {
    const known = this.tables.get(table);
    if (known) return known;
    const [schema, name] = table.split('.');
    const rows = await this.session.all<{ column_name: string; data_type: string }>(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
      [schema ?? '', name ?? ''],
    );
    if (rows.length === 0)
      throw dbError(`Loading ${table}`, new Error('table does not exist (migrations not applied?)'));
    const columns = rows.map((r) => targetColumn(r.column_name, r.data_type));
    const staging = `temp.main.stg_${schema}_${name}`;
    const ddl = columns.map((c) => `${quoteIdent(c.name)} ${wireSqlType(c.wire)}`).join(', ');
    await this.session.run(`CREATE TEMP TABLE IF NOT EXISTS stg_${schema}_${name} (${ddl})`);
    const target: TargetTable = {
      table,
      staging,
      columns,
      types: columns.map((c) => wireDuckType(c.wire)),
      types_by_name: Object.fromEntries(columns.map((c) => [c.name, c.type])),
    };
    this.tables.set(table, target);
    return target;
  }
}

function targetColumn(name: string, type: string): TargetColumn {
  const ident = quoteIdent(name);
  if (type === 'BOOLEAN') return { name, type, wire: 'boolean', cast: ident };
  if (/^(DOUBLE|FLOAT|REAL|DECIMAL.*)$/.test(type))
    return { name, type, wire: 'number', cast: `CAST(${ident} AS ${type})` };
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER)$/.test(type)) {
    return { name, type, wire: 'number', cast: `CAST(${ident} AS ${type})` };
  }
  if (type === 'VARCHAR') return { name, type, wire: 'text', cast: ident };
  if (type === 'TIMESTAMP')
    return { name, type, wire: 'text', cast: `CAST(CAST(${ident} AS TIMESTAMPTZ) AS TIMESTAMP)` };
  if (type === 'JSON') return { name, type, wire: 'text', cast: `CAST(${ident} AS JSON)` };
  if (type.endsWith('[]')) return { name, type, wire: 'text', cast: `CAST(CAST(${ident} AS JSON) AS ${type})` };
  return { name, type, wire: 'text', cast: `CAST(${ident} AS ${type})` };
}

function wireSqlType(wire: WireKind): string {
  return wire === 'number' ? 'DOUBLE' : wire === 'boolean' ? 'BOOLEAN' : 'VARCHAR';
}

function wireDuckType(wire: WireKind): DuckDBType {
  return wire === 'number' ? DOUBLE : wire === 'boolean' ? BOOLEAN : VARCHAR;
}

function toWire(column: TargetColumn, row: RawRow, run: RunColumns): DuckDBValue {
  const value = column.name in run ? run[column.name as keyof RunColumns] : row[column.name];
  if (value === null || value === undefined) return null;
  switch (column.wire) {
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return Boolean(value);
    default:
      if (typeof value === 'string') return value;
      if (value instanceof Date) return value.toISOString();
      if (typeof value === 'object') return JSON.stringify(value);
      return String(value);
  }
}

/** `team_id = $1 AND a IS NOT DISTINCT FROM $2 … [AND col BETWEEN $n AND $n+1]`. */
export function partitionPredicate(
  partition: Partition,
  teamId: string,
  types: Record<string, string> = {},
): { where: string; params: DuckDBValue[] } {
  const params: DuckDBValue[] = [teamId];
  const parts = ['team_id = $1'];
  for (const [column, value] of Object.entries(partition.equals)) {
    params.push(value ?? null);
    const type = types[column];
    if (!type) throw new Error(`partition column ${column} is not a column of the target table`);
    parts.push(`${quoteIdent(column)} IS NOT DISTINCT FROM CAST($${params.length} AS ${type})`);
  }
  if (partition.between) {
    params.push(partition.between.from, partition.between.to);
    parts.push(
      `${quoteIdent(partition.between.column)} BETWEEN CAST($${params.length - 1} AS DATE) AND CAST($${params.length} AS DATE)`,
    );
  }
  return { where: parts.join(' AND '), params };
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
