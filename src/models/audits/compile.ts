import { quoteIdent, quoteLiteral } from '../../core/sql.js';
import { parseQualifiedName } from '../dependencies.js';
import { qualified } from '../sql-text.js';
import type { AuditSpec } from './spec.js';

/**
 * The query returning an audit's failing rows over `relation` (restricted by `scope`, the interval just written
 * for incremental models). `number_of_rows` returns one row when the count is out of bounds.
 */
export function auditQuery(audit: AuditSpec, relation: string, scope?: string): string {
  const where = scope ? `WHERE ${scope}` : '';
  return auditOver(audit, `(SELECT * FROM ${relation} ${where}) AS m`);
}

/**
 * One statement counting the failing rows of every audit given, a column each (`a0`, `a1`, … in their order): the rows
 * audited (`relation` within `scope`) are one CTE that every audit's query reads as `m`, as it reads the relation alone
 * (the CTE's own name is one no audit's SQL would name). A view's CTE is MATERIALIZED, so the view is planned and run
 * once for all its audits rather than once per audit (planning a staging view over a few raw tables is most of an
 * audit's cost on a night's few rows: docs/lab/2026-11-code-constants.md#the-models); a table's is not, so each audit
 * scans only the columns it reads and nothing is held in memory.
 */
export function auditsCountQuery(audits: AuditSpec[], relation: string, scope: string | undefined, view: boolean) {
  const where = scope ? ` WHERE ${scope}` : '';
  const counts = audits.map((a, i) => `(SELECT count(*) FROM (${auditOver(a, '__vwh_audited AS m')}) AS f) AS a${i}`);
  return `WITH __vwh_audited AS ${view ? '' : 'NOT '}MATERIALIZED (SELECT * FROM ${relation}${where})\nSELECT ${counts.join(',\n  ')}`;
}

/** An audit's failing rows, read from `from` (a relation aliased `m`). */
function auditOver(audit: AuditSpec, from: string): string {
  const cols = audit.columns.map(quoteIdent);
  switch (audit.type) {
    case 'not_null':
      return `SELECT * FROM ${from} WHERE ${cols.map((c) => `${c} IS NULL`).join(' OR ')}`;
    case 'unique':
      return `SELECT ${cols.join(', ')}, count(*) AS n_rows FROM ${from} GROUP BY ALL HAVING count(*) > 1`;
    case 'accepted_values': {
      const values = (audit.values ?? []).map(sqlValue).join(', ');
      return `SELECT * FROM ${from} WHERE ${cols[0]} IS NOT NULL AND ${cols[0]} NOT IN (${values})`;
    }
    case 'relationships': {
      const target = parseQualifiedName(audit.to as string);
      const toRel = target.schema ? qualified(target.schema, target.name) : quoteIdent(target.name);
      return `SELECT m.* FROM ${from} WHERE m.${cols[0]} IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM ${toRel} AS p WHERE p.${quoteIdent(audit.field as string)} = m.${cols[0]})`;
    }
    case 'number_of_rows': {
      const bounds = [
        audit.min !== undefined ? `n_rows < ${Number(audit.min)}` : undefined,
        audit.max !== undefined ? `n_rows > ${Number(audit.max)}` : undefined,
      ].filter(Boolean);
      return `SELECT n_rows FROM (SELECT count(*) AS n_rows FROM ${from}) WHERE ${bounds.join(' OR ') || 'false'}`;
    }
    case 'expression':
      return `SELECT * FROM ${from} WHERE NOT coalesce((${audit.sql}), false)`;
  }
}

function sqlValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return quoteLiteral(String(value));
}
