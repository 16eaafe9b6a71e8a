/** Which warehouse relations an export writes, and their columns. */

import { VwhError } from '../core/errors.js';
import type { Database } from '../warehouse/duckdb.js';
import { listValue } from '../warehouse/duckdb-api.js';
import { checkSegment } from './paths.js';
import type { SourceColumn } from './portable-types.js';

export interface ExportTable {
  schema: string;
  name: string;
  columns: SourceColumn[];
}

export interface TableSelection {
  /** Also the raw.* tables. */
  raw?: boolean;
  /** Also the staging.* views. */
  staging?: boolean;
  /** Only these (`name` or `schema.name`); each must exist in a selected schema. */
  tables?: string[];
}

/** The relations of `schemas`, ordered by schema then name, with their columns in table order. */
async function relations(db: Database, schemas: string[]): Promise<ExportTable[]> {
  const rows = await db.session.all<{
    schema_name: string;
    table_name: string;
    column_name: string;
    data_type: string;
  }>(
    `select schema_name, table_name, column_name, data_type
       from duckdb_columns()
      where database_name = current_database() and schema_name in (select unnest($1::varchar[]))
        and not internal
      order by schema_name, table_name, column_index`,
    [listValue(schemas)],
  );
  const out = new Map<string, ExportTable>();
  for (const row of rows) {
    const key = `${row.schema_name}.${row.table_name}`;
    let table = out.get(key);
    if (!table) {
      table = { schema: row.schema_name, name: row.table_name, columns: [] };
      out.set(key, table);
    }
    table.columns.push({ name: row.column_name, type: row.data_type });
  }
  return [...out.values()];
}

/** The marts (and raw tables, staging views on request), narrowed to `tables`; unknown names are a USAGE error. */
export async function selectTables(db: Database, selection: TableSelection): Promise<ExportTable[]> {
  const schemas = ['marts', ...(selection.raw ? ['raw'] : []), ...(selection.staging ? ['staging'] : [])];
  const all = await relations(db, schemas);
  if (all.length === 0) {
    throw new VwhError(
      'USAGE',
      `The warehouse has no ${schemas.join('/')} tables yet. Build the models first (vwh models build, or vwh run).`,
    );
  }
  let chosen = all;
  if (selection.tables && selection.tables.length > 0) {
    chosen = [];
    for (const wanted of selection.tables) {
      const match = all.filter((t) => `${t.schema}.${t.name}` === wanted || t.name === wanted);
      if (match.length === 0) {
        throw new VwhError(
          'USAGE',
          `Unknown table ${JSON.stringify(wanted)} for this export. Known: ${all.map((t) => `${t.schema}.${t.name}`).join(', ')}` +
            (selection.raw && selection.staging ? '.' : ' (add --raw or --staging for those schemas).'),
        );
      }
      for (const table of match) if (!chosen.includes(table)) chosen.push(table);
    }
  }
  for (const table of chosen) {
    checkSegment(table.schema, 'Schema');
    checkSegment(table.name, 'Table');
  }
  return chosen;
}

export function qualified(table: Pick<ExportTable, 'schema' | 'name'>): string {
  return `"${table.schema}"."${table.name}"`;
}
