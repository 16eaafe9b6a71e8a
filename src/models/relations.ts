import type { Session } from '../warehouse/session.js';

/** Whether `schema.name` exists, and as what. */
export async function relationKind(exec: Session, schema: string, name: string): Promise<'table' | 'view' | undefined> {
  const rows = await exec.all<{ kind: string }>(
    `SELECT 'table' AS kind FROM duckdb_tables() WHERE schema_name = $1 AND table_name = $2 AND NOT temporary
     UNION ALL
     SELECT 'view' FROM duckdb_views() WHERE schema_name = $1 AND view_name = $2 AND NOT internal AND NOT temporary`,
    [schema, name],
  );
  return rows[0]?.kind as 'table' | 'view' | undefined;
}
