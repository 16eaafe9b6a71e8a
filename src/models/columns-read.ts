/**
 * Which columns of each table a SELECT reads, from DuckDB's serialized AST (`json_serialize_sql`). Used to hash only
 * what a model reads of a parent that is not cut by day (freshness.ts): the prompt list's nightly figures or its
 * `_extracted_at` must not make a model that reads only the prompt's text rebuild every day.
 *
 * Conservative on purpose, since a column missed here is a change missed: every unqualified column name counts for
 * every table the query reads (the caller keeps only the table's real columns), `alias.*`, a bare `*` in a SELECT
 * whose FROM holds the table, `COLUMNS(...)` and the alias used as a value (`to_json(p)`) count as every column.
 */
export type ColumnsRead = ReadonlySet<string> | '*';

interface TableNode {
  schema: string;
  name: string;
  alias: string;
}

/** `tables`: lower-cased `schema.name` keys; returns the columns (lower case) or '*' per key. */
export function columnsRead(root: unknown, tables: Iterable<string>): Map<string, ColumnsRead> {
  const wanted = new Set([...tables].map((t) => t.toLowerCase()));
  const bases: TableNode[] = [];
  // Each column reference with the tables in scope for an unqualified name: the FROM tables of its SELECT and of
  // the SELECTs around it (a correlated subquery), but not of the query around a CTE.
  const refs: { names: string[]; scope: ReadonlySet<string> }[] = [];
  // fromTables null: a star inside an expression, of unknown scope (counts for every table).
  const stars: { relation: string; fromTables: TableNode[] | null; columns: boolean }[] = [];
  const listed = new Set<unknown>();
  const visit = (node: unknown, scope: ReadonlySet<string>): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, scope);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const obj = node as Record<string, unknown>;
    if (obj.type === 'BASE_TABLE' && typeof obj.table_name === 'string') bases.push(baseTable(obj));
    if (obj.class === 'COLUMN_REF' && Array.isArray(obj.column_names)) {
      refs.push({ names: (obj.column_names as unknown[]).map((n) => String(n).toLowerCase()), scope });
    }
    if (obj.type === 'JOIN' && Array.isArray(obj.using_columns)) {
      for (const c of obj.using_columns as unknown[]) refs.push({ names: [String(c).toLowerCase()], scope });
    }
    let inner = scope;
    if (obj.type === 'SELECT_NODE' && Array.isArray(obj.select_list)) {
      const fromTables = directTables(obj.from_table);
      inner = new Set([...scope, ...fromTables.map((t) => `${t.schema}.${t.name}`)]);
      for (const item of obj.select_list as Record<string, unknown>[]) {
        if (item?.class === 'STAR') {
          listed.add(item);
          stars.push({
            relation: String(item.relation_name ?? '').toLowerCase(),
            fromTables,
            columns: item.columns === true,
          });
        }
      }
    }
    if (obj.class === 'STAR' && !listed.has(obj)) {
      stars.push({
        relation: String(obj.relation_name ?? '').toLowerCase(),
        fromTables: null,
        columns: obj.columns === true,
      });
    }
    for (const [field, value] of Object.entries(obj)) visit(value, field === 'cte_map' ? new Set() : inner);
  };
  visit(root, new Set());
  const result = new Map<string, ColumnsRead>();
  for (const key of wanted) {
    const aliases = new Set<string>();
    for (const b of bases) {
      if (`${b.schema}.${b.name}` === key) {
        aliases.add(b.alias || b.name);
        aliases.add(b.name);
      }
    }
    const everything =
      stars.some(
        (s) =>
          s.columns ||
          aliases.has(s.relation) ||
          (s.relation === '' && (s.fromTables?.some((t) => `${t.schema}.${t.name}` === key) ?? true)),
      ) || refs.some((r) => r.names.length === 1 && aliases.has(r.names[0] as string));
    if (everything) {
      result.set(key, '*');
      continue;
    }
    const columns = new Set<string>();
    for (const { names, scope } of refs) {
      // The first name may be a column of a table in scope (a struct field access `col.field` has two names too).
      if (scope.has(key)) columns.add(names[0] as string);
      for (let i = 0; i < names.length - 1; i++)
        if (aliases.has(names[i] as string)) columns.add(names[i + 1] as string);
    }
    result.set(key, columns);
  }
  return result;
}

function baseTable(obj: Record<string, unknown>): TableNode {
  return {
    schema: String(obj.schema_name ?? '').toLowerCase(),
    name: String(obj.table_name).toLowerCase(),
    alias: String(obj.alias ?? '').toLowerCase(),
  };
}

/** The tables a FROM clause reads itself (through joins), not those of its subqueries. */
function directTables(from: unknown): TableNode[] {
  if (typeof from !== 'object' || from === null) return [];
  const obj = from as Record<string, unknown>;
  if (obj.type === 'BASE_TABLE' && typeof obj.table_name === 'string') return [baseTable(obj)];
  if (obj.type === 'JOIN') return [...directTables(obj.left), ...directTables(obj.right)];
  return [];
}
