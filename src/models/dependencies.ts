import { DuckDBInstance } from '../warehouse/duckdb-api.js';
import { type ColumnsRead, columnsRead } from './columns-read.js';
import { TextMemo } from './parse-cache.js';
import { PARSE_MACROS, substituteMacros } from './sql-text.js';

export interface TableRef {
  schema: string | undefined;
  name: string;
  /** The columns of it the SQL reads (lower case), or '*' for all of them. */
  columns?: ColumnsRead;
}

/** Parses under way, by SQL text (after the parse macros): two loads of one text share one parse. */
const READ = new Map<string, Promise<TableRef[]>>();

/** What `read` found for each SQL text, for the life of the process and in the project's parse cache. */
export const TABLES_READ = new TextMemo<TableRef[]>(
  'tables_read',
  (refs) => refs.map((r) => ({ ...r, columns: r.columns instanceof Set ? [...r.columns] : r.columns })),
  (json) =>
    (json as Array<{ schema?: string; name: string; columns?: string[] | '*' }>).map((r) => ({
      schema: r.schema ?? undefined,
      name: r.name,
      ...(r.columns === undefined ? {} : { columns: Array.isArray(r.columns) ? new Set(r.columns) : r.columns }),
    })),
);

/**
 * Reads the tables a SELECT reads, with DuckDB's own parser on an empty in-memory instance (so no view is expanded
 * and nothing needs to exist). Also checks the text is exactly one SELECT.
 */
export class DependencyReader {
  /** Texts this process has parsed with DuckDB (each text once while it parses; see `read`). */
  static parses = 0;
  /** Made on the first text not read before (none when every text was). */
  private instance: Promise<DuckDBInstance> | undefined;
  /** Parses under way on this reader's instance: it is closed only once they have all ended. */
  private readonly pending = new Set<Promise<unknown>>();

  private constructor() {}

  static async create(): Promise<DependencyReader> {
    return new DependencyReader();
  }

  /**
   * Throws an Error with DuckDB's message (which carries `LINE n`) when the SQL is not a single SELECT. The answer
   * depends on the text alone, so it is kept (`TABLES_READ`: for the process, and in the parse cache a build writes):
   * a load, in this process or the next night's, reads only the files that changed. A load parses about 75 files,
   * a visible share of a small world's whole models build (docs/lab/2026-11-code-constants.md#the-models).
   */
  read(sql: string): Promise<TableRef[]> {
    const text = substituteMacros(sql, PARSE_MACROS);
    const known = TABLES_READ.get(text);
    if (known) return Promise.resolve(known.map((ref) => ({ ...ref })));
    let refs = READ.get(text);
    if (!refs) {
      const parse = this.parse(text);
      refs = parse;
      this.pending.add(parse);
      parse.then(
        () => this.pending.delete(parse),
        () => this.pending.delete(parse),
      );
      READ.set(text, refs);
      refs.then(
        (list) => {
          TABLES_READ.set(text, list);
          READ.delete(text);
        },
        // a failure is not kept: the next load reports it again, in its file's words
        () => READ.delete(text),
      );
    }
    // each caller gets its own copies (the refs' column sets are shared and never changed)
    return refs.then((list) => list.map((ref) => ({ ...ref })));
  }

  private async parse(text: string): Promise<TableRef[]> {
    DependencyReader.parses += 1;
    this.instance ??= DuckDBInstance.create(':memory:');
    const connection = await (await this.instance).connect();
    try {
      // The parser proper first: its errors carry `LINE n`, json_serialize_sql's do not.
      const extracted = await connection.extractStatements(text).catch((error: unknown) => {
        throw new Error(String((error as Error).message).replace(/^Failed to extract statements: /, ''));
      });
      if (extracted.count !== 1) {
        throw new Error(`a model file holds exactly one SELECT; found ${extracted.count} statements`);
      }
      const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS ast', [text]);
      const ast = JSON.parse(String(reader.getRowObjectsJS()[0]?.ast)) as {
        error: boolean;
        error_message?: string;
        statements?: unknown[];
      };
      if (ast.error) throw new Error(ast.error_message ?? 'not a SELECT statement');
      if ((ast.statements?.length ?? 0) !== 1) {
        throw new Error(`a model file holds exactly one SELECT; found ${ast.statements?.length ?? 0} statements`);
      }
      const refs = new Map<string, TableRef>();
      const add = (ref: TableRef) => refs.set(`${ref.schema ?? ''}.${ref.name}`.toLowerCase(), ref);
      for (const entry of await connection.getTableNames(text, true)) add(parseQualifiedName(entry));
      // getTableNames (DuckDB 1.5) returns nothing at all for a query with a JOIN ... USING on an empty catalog, so
      // the serialized AST is walked as well and both are merged.
      for (const ref of walkAst(ast.statements?.[0])) add(ref);
      const read = columnsRead(ast.statements?.[0], refs.keys());
      return [...refs.entries()].map(([key, ref]) => ({ ...ref, columns: read.get(key) ?? '*' }));
    } finally {
      connection.closeSync();
    }
  }

  close(): void {
    // A load that failed on one file closes its reader while other files' parses still run: closing the instance
    // under a running query crashes the process (DuckDB's native code), so it goes once every parse has ended.
    const instance = this.instance;
    if (!instance) return;
    void Promise.allSettled([...this.pending])
      .then(() => instance)
      .then((i) => i.closeSync())
      .catch(() => {});
  }
}

/** `raw."my tbl" AS q` → {schema: 'raw', name: 'my tbl'}; a catalog prefix (`main.raw.x`) is dropped. */
export function parseQualifiedName(text: string): TableRef {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let j = i + 1;
      let part = '';
      while (j < text.length) {
        if (text[j] === '"' && text[j + 1] === '"') {
          part += '"';
          j += 2;
        } else if (text[j] === '"') break;
        else part += text[j++];
      }
      parts.push(part);
      i = j + 1;
    } else {
      const m = /^[^."\s]+/.exec(text.slice(i));
      if (!m) break;
      parts.push(m[0]);
      i += m[0].length;
    }
    if (text[i] !== '.') break;
    i++;
  }
  const name = parts[parts.length - 1] ?? text;
  const schema = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  return { schema, name };
}

function walkAst(root: unknown): TableRef[] {
  const ctes = new Set<string>();
  const tables: TableRef[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const obj = node as Record<string, unknown>;
    if (obj.type === 'BASE_TABLE' && typeof obj.table_name === 'string') {
      const schema = typeof obj.schema_name === 'string' && obj.schema_name !== '' ? obj.schema_name : undefined;
      tables.push({ schema, name: obj.table_name });
    }
    const cteMap = obj.cte_map as { map?: { key?: string }[] } | undefined;
    for (const entry of cteMap?.map ?? []) if (entry.key) ctes.add(entry.key.toLowerCase());
    for (const value of Object.values(obj)) visit(value);
  };
  visit(root);
  return tables.filter((t) => t.schema !== undefined || !ctes.has(t.name.toLowerCase()));
}
