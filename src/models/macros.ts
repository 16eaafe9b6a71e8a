/**
 * SQL macros shared by the models: `macros/*.sql` in the models folder, each a series of DuckDB
 * `CREATE [OR REPLACE] MACRO` statements. The runner creates them in the warehouse before it builds or tests (so
 * views that call them also work from a BI tool), and in the throwaway database of every unit test. A model that
 * calls a macro has the macro's text in its fingerprint, so editing a macro marks its callers `state:modified`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VwhError } from '../core/errors.js';
import { splitStatements, stripComments } from './sql-text.js';

export interface Macro {
  /** Path relative to the models folder, e.g. `macros/stats.sql`. */
  path: string;
  /** Lower-case macro name. */
  name: string;
  /** The statement that creates it (as written, `CREATE OR REPLACE` ensured). */
  sql: string;
}

const CREATE = /^\s*create\s+(?:or\s+replace\s+)?macro\s+(?:main\.)?("?)([a-z_][a-z0-9_]*)\1\s*\(/i;

/** Reads `macros/*.sql` of the models folder; every statement must create one macro. */
export function loadMacros(root: string): Macro[] {
  const dir = join(root, 'macros');
  if (!existsSync(dir)) return [];
  const macros: Macro[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const path = `macros/${file}`;
    for (const statement of splitStatements(readFileSync(join(dir, file), 'utf8'))) {
      const match = CREATE.exec(statement);
      if (!match) {
        throw new VwhError(
          'MODEL_GRAPH',
          `${path}: only CREATE MACRO statements belong in macros/ (found: ${statement.slice(0, 60).replace(/\s+/g, ' ')}…)`,
        );
      }
      const name = (match[2] as string).toLowerCase();
      const other = macros.find((m) => m.name === name);
      if (other) throw new VwhError('MODEL_GRAPH', `${path}: a second macro named ${name} (also ${other.path})`);
      macros.push({
        path,
        name,
        sql: statement.replace(/^\s*create\s+(?:or\s+replace\s+)?macro/i, 'CREATE OR REPLACE MACRO'),
      });
    }
  }
  return macros;
}

/** The macros a SQL text calls (`name(`), in the order they are defined. */
export function macrosCalledBy(sql: string, macros: readonly Macro[]): Macro[] {
  const text = stripComments(sql).toLowerCase();
  return macros.filter((m) => new RegExp(`\\b${m.name}\\s*\\(`).test(text));
}

/** A short hash of the macros a model calls, '' when it calls none (so fingerprints of other models do not move). */
export function macrosFingerprint(called: readonly Macro[]): string {
  if (called.length === 0) return '';
  const hash = createHash('sha256');
  for (const m of called) hash.update(m.sql.replace(/\s+/g, ' ').trim()).update('\u0001');
  return hash.digest('hex').slice(0, 16);
}

/** Creates (or replaces) every macro through `run`, naming the file when DuckDB refuses one. */
export async function createMacros(macros: readonly Macro[], run: (sql: string) => Promise<unknown>): Promise<void> {
  for (const m of macros) {
    try {
      await run(m.sql);
    } catch (error) {
      throw new VwhError('MODEL_ERROR', `${m.path}: macro ${m.name}: ${(error as Error).message}`, { cause: error });
    }
  }
}
