import type { Session } from '../warehouse/session.js';

export type RelationKind = 'table' | 'view';

/**
 * The warehouse's tables and views (not temporary, not internal), read once and then kept as a build changes them:
 * a lookup per node cost a scan of DuckDB's catalogue each (docs/lab/2026-11-code-constants.md#the-models). Only
 * the node that builds a model changes its relation, so a node records the change once the transaction that made it
 * committed (`set`); a rolled-back transaction changed nothing, so it records nothing.
 */
export class Relations {
  private constructor(private readonly kinds: Map<string, RelationKind>) {}

  static async read(exec: Session): Promise<Relations> {
    const rows = await exec.all<{ schema_name: string; name: string; kind: RelationKind }>(
      `SELECT schema_name, table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE NOT temporary
       UNION ALL
       SELECT schema_name, view_name, 'view' FROM duckdb_views() WHERE NOT internal AND NOT temporary`,
    );
    const kinds = new Map<string, RelationKind>();
    // A table and a view of one name cannot both exist; if they did, the table is what a lookup used to answer.
    for (const r of rows) if (!kinds.has(key(r.schema_name, r.name))) kinds.set(key(r.schema_name, r.name), r.kind);
    return new Relations(kinds);
  }

  /** Whether `schema.name` exists, and as what. */
  kind(schema: string, name: string): RelationKind | undefined {
    return this.kinds.get(key(schema, name));
  }

  /** `schema.name` is now a table, a view, or nothing: call once the change committed. */
  set(schema: string, name: string, kind: RelationKind | undefined): void {
    if (kind) this.kinds.set(key(schema, name), kind);
    else this.kinds.delete(key(schema, name));
  }
}

function key(schema: string, name: string): string {
  return `${schema}\u0000${name}`;
}
