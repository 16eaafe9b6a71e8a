import { replaceRelation, stripTrailingSemicolon } from './sql-text.js';
import type { Model, Project } from './types.js';

/** The CTE name an ephemeral model takes when inlined. */
export function cteName(model: Model): string {
  return `__eph_${model.schema}__${model.name}`;
}

/**
 * A model's SELECT ready to run: ephemeral parents (and theirs) inlined as CTEs, references to them rewritten.
 * Macros (`@start_date`) are left for the materialization, which knows the interval.
 */
export function compileModel(project: Project, model: Pick<Model, 'sql' | 'parents'>): CompiledSql {
  const ephemerals = ephemeralAncestors(project, model);
  const body = rewrite(stripTrailingSemicolon(model.sql), ephemerals);
  if (ephemerals.length === 0) return { sql: body, lineOffset: 0 };
  const inlined: InlinedRegion[] = [];
  let line = 1;
  const ctes = ephemerals.map((e) => {
    const inner = rewrite(
      stripTrailingSemicolon(e.sql),
      ephemerals.filter((o) => o !== e),
    );
    // `name AS (` on `line`, the ephemeral's SQL on the lines after it, `),` on the next.
    const lines = inner.split('\n').length;
    inlined.push({ path: e.path, sqlLine: e.sqlLine, first: line + 1, last: line + lines });
    line += lines + 2;
    return `${cteName(e)} AS (\n${inner}\n)`;
  });
  const prefix = `WITH ${ctes.join(',\n')}\nSELECT * FROM (\n`;
  return { sql: `${prefix}${body}\n) AS __vwh_model`, lineOffset: prefix.split('\n').length - 1, inlined };
}

/** Where an inlined ephemeral model's SQL sits in the compiled text (1-based, inclusive). */
export interface InlinedRegion {
  path: string;
  sqlLine: number;
  first: number;
  last: number;
}

export interface CompiledSql {
  sql: string;
  /** Lines added above the model's own SQL, to map DuckDB's LINE n back to the file. */
  lineOffset: number;
  /** The ephemeral models pasted above it, so an error inside one names that file. */
  inlined?: InlinedRegion[];
}

function rewrite(sql: string, ephemerals: Model[]): string {
  let out = sql;
  for (const e of ephemerals) out = replaceRelation(out, e.schema, e.name, cteName(e));
  return out;
}

/** Ephemeral models reachable through ephemeral parents only, parents before children. */
export function ephemeralAncestors(project: Project, model: Pick<Model, 'parents'>): Model[] {
  const out: Model[] = [];
  const seen = new Set<string>();
  const visit = (m: Pick<Model, 'parents'>) => {
    for (const parentId of m.parents) {
      const parent = project.models.get(parentId);
      if (parent?.config.kind !== 'ephemeral' || seen.has(parentId)) continue;
      seen.add(parentId);
      visit(parent);
      out.push(parent);
    }
  };
  visit(model);
  return out;
}
