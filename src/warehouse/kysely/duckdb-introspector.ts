import type { DatabaseIntrospector, DatabaseMetadata, Kysely, SchemaMetadata, TableMetadata } from 'kysely';
import { sql } from 'kysely';

interface ColumnRow {
  table_schema: string;
  table_name: string;
  table_type: string;
  column_name: string;
  data_type: string;
  is_nullable: string;
  column_default: string | null;
}

/** Schemas, tables and columns from DuckDB's information_schema. */
export class DuckDBIntrospector implements DatabaseIntrospector {
  // biome-ignore lint/suspicious/noExplicitAny: the introspector works on any database shape
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const result = await sql<{ schema_name: string }>`
      select distinct schema_name from information_schema.schemata order by schema_name`.execute(this.db);
    return result.rows.map((r) => ({ name: r.schema_name }));
  }

  async getTables(): Promise<TableMetadata[]> {
    const result = await sql<ColumnRow>`
      select c.table_schema, c.table_name, t.table_type, c.column_name, c.data_type, c.is_nullable, c.column_default
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema not in ('information_schema', 'pg_catalog')
      order by c.table_schema, c.table_name, c.ordinal_position`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of result.rows) {
      const key = `${row.table_schema}.${row.table_name}`;
      let table = tables.get(key);
      if (!table) {
        table = { name: row.table_name, schema: row.table_schema, isView: row.table_type === 'VIEW', columns: [] };
        tables.set(key, table);
      }
      table.columns.push({
        name: row.column_name,
        dataType: row.data_type,
        isNullable: row.is_nullable === 'YES',
        isAutoIncrementing: false,
        hasDefaultValue: row.column_default !== null,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}
