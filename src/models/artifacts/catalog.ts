import type { Session } from '../../warehouse/session.js';
import { Relations } from '../relations.js';
import { qualified } from '../sql-text.js';
import type { Project } from '../types.js';

export interface CatalogEntry {
  relation: string;
  type: 'table' | 'view';
  rows: number | null;
  columns: { name: string; type: string; nullable: boolean; description: string }[];
}

/** What each built model looks like in the warehouse now (DESCRIBE), with the header's column descriptions. */
export async function buildCatalog(exec: Session, project: Project): Promise<Record<string, CatalogEntry>> {
  const out: Record<string, CatalogEntry> = {};
  const relations = await Relations.read(exec);
  for (const id of project.graph.order) {
    const model = project.models.get(id);
    if (!model || model.config.kind === 'ephemeral') continue;
    const type = relations.kind(model.schema, model.name);
    if (!type) continue;
    const rel = qualified(model.schema, model.name);
    const described = await exec.all<{ column_name: string; column_type: string; null: string }>(`DESCRIBE ${rel}`);
    const rows = type === 'table' ? Number(await exec.scalar(`SELECT count(*) FROM ${rel}`)) : null;
    out[id] = {
      relation: id,
      type,
      rows,
      columns: described.map((c) => ({
        name: c.column_name,
        type: c.column_type,
        nullable: c.null !== 'NO',
        description: model.config.columns[c.column_name] ?? '',
      })),
    };
  }
  return out;
}
