/** Quoting for SQL text we build: the one identifier quoter and the one string-literal quoter (DuckDB's rules). */

/** `name` → `"name"`, doubling any `"` inside. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `text` → `'text'`, doubling any `'` inside. */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
