import { groupBy } from '../../core/group.js';
import { quoteLiteral } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { Relations } from '../relations.js';
import { qualified } from '../sql-text.js';
import type { Model, Project } from '../types.js';

export interface CatalogEntry {
  relation: string;
  type: 'table' | 'view';
  rows: number | null;
  columns: { name: string; type: string; nullable: boolean; description: string }[];
}

/**
 * What each built model looks like in the warehouse now, with the header's column descriptions. Two statements for
 * the whole project: the columns from `duckdb_columns()` (the same names, types and nullability as DESCRIBE gives)
 * and every table's row count in one UNION ALL. A DESCRIBE and a count a model were about 100 statements a night.
 */
export async function buildCatalog(exec: Session, project: Project): Promise<Record<string, CatalogEntry>> {
  const relations = await Relations.read(exec);
  const built: { model: Model; type: 'table' | 'view' }[] = [];
  for (const id of project.graph.order) {
    const model = project.models.get(id);
    const type = model && model.config.kind !== 'ephemeral' ? relations.kind(model.schema, model.name) : undefined;
    if (model && type) built.push({ model, type });
  }
  if (built.length === 0) return {};
  const schemas = [...new Set(built.map((b) => b.model.schema))].map(quoteLiteral).join(', ');
  const described = await exec.all<{
    schema_name: string;
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: boolean;
  }>(
    `SELECT schema_name, table_name, column_name, data_type, is_nullable FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name IN (${schemas})
     ORDER BY schema_name, table_name, column_index`,
  );
  const columns = groupBy(
    described,
    (c) => `${c.schema_name}.${c.table_name}`,
    (c) => ({ name: c.column_name, type: c.data_type, nullable: c.is_nullable }),
  );
  const tables = built.filter((b) => b.type === 'table');
  const rows = new Map<string, number>();
  if (tables.length > 0) {
    const counts = tables.map(
      ({ model }) =>
        `SELECT ${quoteLiteral(model.id)} AS id, count(*) AS n FROM ${qualified(model.schema, model.name)}`,
    );
    for (const r of await exec.all<{ id: string; n: number }>(counts.join('\nUNION ALL\n')))
      rows.set(r.id, Number(r.n));
  }
  const out: Record<string, CatalogEntry> = {};
  for (const { model, type } of built) {
    out[model.id] = {
      relation: model.id,
      type,
      rows: type === 'table' ? (rows.get(model.id) ?? 0) : null,
      columns: (columns.get(`${model.schema}.${model.name}`) ?? []).map((c) => ({
        ...c,
        description: model.config.columns[c.name] ?? '',
      })),
    };
  }
  return out;
}
