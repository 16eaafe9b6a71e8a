/**
 * Text-level helpers for model SQL that must not touch string literals, quoted identifiers' insides or comments:
 * macro substitution (`@start_date`) and rewriting a model reference into a CTE name (ephemeral models).
 */
import { quoteIdent } from '../core/sql.js';

/** Calls `fn` on each stretch of code outside '...' literals and comments, and splices its result back. */
export function mapCode(sql: string, fn: (code: string) => string): string {
  let out = '';
  let code = '';
  let i = 0;
  const flush = () => {
    out += fn(code);
    code = '';
  };
  while (i < sql.length) {
    const ch = sql[i];
    const next = sql[i + 1];
    if (ch === "'") {
      flush();
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
        else if (sql[j] === "'") break;
        else j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '-' && next === '-') {
      flush();
      const end = sql.indexOf('\n', i);
      const j = end === -1 ? sql.length : end;
      out += sql.slice(i, j);
      i = j;
    } else if (ch === '/' && next === '*') {
      flush();
      const end = sql.indexOf('*/', i + 2);
      const j = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, j);
      i = j;
    } else {
      code += ch;
      i++;
    }
  }
  flush();
  return out;
}

export interface MacroValues {
  start_date: string;
  end_date: string;
}

/** The dates a model's SQL is parsed with when only its shape matters (dependencies, validation). */
export const PARSE_MACROS: MacroValues = { start_date: '1970-01-01', end_date: '1970-01-01' };

/** `@start_date`, `@end_date` → DATE literals (both inclusive). Unknown `@words` are left for DuckDB to reject. */
export function substituteMacros(sql: string, values: MacroValues): string {
  return mapCode(sql, (code) =>
    code.replace(/@(start_date|end_date)\b/gi, (_m, name: string) => {
      const key = name.toLowerCase() as keyof MacroValues;
      return `DATE '${values[key]}'`;
    }),
  );
}

/** Replaces references to `schema.name` (bare or quoted parts, any case) with `replacement`. */
export function replaceRelation(sql: string, schema: string, name: string, replacement: string): string {
  const part = (s: string) => `(?:"${escapeRegex(s)}"|${escapeRegex(s)})`;
  const re = new RegExp(`(?<![\\w."])${part(schema)}\\s*\\.\\s*${part(name)}(?![\\w"])`, 'gi');
  return mapCode(sql, (code) => code.replace(re, replacement));
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `schema.name` → `"schema"."name"`. */
export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** Strips a trailing semicolon and whitespace so the SELECT can be wrapped. */
export function stripTrailingSemicolon(sql: string): string {
  return sql.replace(/[\s;]+$/, '');
}
