import { quoteIdent } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { qualified } from '../sql-text.js';

export interface Column {
  name: string;
  type: string;
}

/** The columns a query returns (DESCRIBE binds it without running it), or a relation has. */
export async function describeColumns(exec: Session, selectOrRelation: string): Promise<Column[]> {
  const rows = await exec.all<{ column_name: string; column_type: string }>(`DESCRIBE ${selectOrRelation}`);
  return rows.map((r) => ({ name: r.column_name, type: r.column_type }));
}

/**
 * Forward-only schema change for the kinds that keep their table between builds: a column the query now returns
 * and the table lacks is added (NULL in the rows written before). Columns the query stopped returning stay, NULL
 * from now on. Returns the names added.
 */
export async function addNewColumns(
  exec: Session,
  schema: string,
  name: string,
  incoming: Column[],
  ignore: string[] = [],
): Promise<string[]> {
  const rel = qualified(schema, name);
  const existing = new Set((await describeColumns(exec, rel)).map((c) => c.name.toLowerCase()));
  const added: string[] = [];
  for (const column of incoming) {
    if (existing.has(column.name.toLowerCase()) || ignore.includes(column.name)) continue;
    await exec.run(`ALTER TABLE ${rel} ADD COLUMN ${quoteIdent(column.name)} ${column.type}`);
    added.push(column.name);
  }
  return added;
}

/** The message part saying which columns were added, or nothing. */
export function addedNote(added: string[]): string {
  return added.length ? `; new column(s) ${added.join(', ')} added` : '';
}
