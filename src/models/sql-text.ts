/**
 * Text-level helpers for model SQL that must not touch string literals, quoted identifiers' insides or comments:
 * macro substitution (`@start_date`) and rewriting a model reference into a CTE name (ephemeral models).
 */
import { quoteIdent } from '../core/sql.js';

export interface SqlPiece {
  /** `string` is a '...' literal, `identifier` a "quoted identifier", `comment` a `--` line or a block comment. */
  kind: 'code' | 'identifier' | 'string' | 'comment';
  text: string;
}

/**
 * The one lexer for model and macro SQL: cuts the text into code, '...' literals, "quoted identifiers" and
 * comments (a `--` comment stops before its newline); a quote or `--` inside a literal or identifier starts
 * nothing. Joining the pieces' texts gives the input back.
 */
export function sqlPieces(sql: string): SqlPiece[] {
  const pieces: SqlPiece[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    const next = sql[i + 1];
    let end: number;
    let kind: SqlPiece['kind'];
    if (ch === "'" || ch === '"') {
      kind = ch === "'" ? 'string' : 'identifier';
      end = i + 1;
      while (end < sql.length) {
        if (sql[end] === ch && sql[end + 1] === ch) end += 2;
        else if (sql[end] === ch) break;
        else end++;
      }
      end = Math.min(end + 1, sql.length);
    } else if (ch === '-' && next === '-') {
      kind = 'comment';
      const newline = sql.indexOf('\n', i);
      end = newline === -1 ? sql.length : newline;
    } else if (ch === '/' && next === '*') {
      kind = 'comment';
      const close = sql.indexOf('*/', i + 2);
      end = close === -1 ? sql.length : close + 2;
    } else {
      kind = 'code';
      CODE_END.lastIndex = i + 1;
      end = CODE_END.exec(sql)?.index ?? sql.length;
    }
    pieces.push({ kind, text: sql.slice(i, end) });
    i = end;
  }
  return pieces;
}

const CODE_END = /['"]|--|\/\*/g;

/**
 * Calls `fn` on each stretch of code outside '...' literals and comments, and splices its result back. Quoted
 * identifiers belong to the stretch, so `fn` sees `"raw"."chats"` whole.
 */
export function mapCode(sql: string, fn: (code: string) => string): string {
  let out = '';
  let code = '';
  for (const piece of sqlPieces(sql)) {
    if (piece.kind === 'code' || piece.kind === 'identifier') {
      code += piece.text;
      continue;
    }
    out += fn(code) + piece.text;
    code = '';
  }
  return out + fn(code);
}

/** Splits on `;` outside literals, quoted identifiers and comments; comments are dropped, empty statements too. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const piece of sqlPieces(sql)) {
    if (piece.kind === 'comment') continue;
    if (piece.kind !== 'code') {
      current += piece.text;
      continue;
    }
    const [first, ...rest] = piece.text.split(';');
    current += first;
    for (const part of rest) {
      out.push(current);
      current = part;
    }
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** The text with every comment replaced by a space. */
export function stripComments(sql: string): string {
  return sqlPieces(sql)
    .map((piece) => (piece.kind === 'comment' ? ' ' : piece.text))
    .join('');
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
