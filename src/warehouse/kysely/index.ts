import { Kysely } from 'kysely';
import type { Session } from '../session.js';
import { DuckDBDialect } from './duckdb-dialect.js';
import type { OpsDatabase } from './ops-database.js';

export { DuckDBDialect } from './duckdb-dialect.js';
export type { OpsDatabase } from './ops-database.js';

/** A typed kysely instance for the ops tables, running on `session` (and inside its transactions). */
export function opsDb(session: Session): Kysely<OpsDatabase> {
  return new Kysely<OpsDatabase>({ dialect: new DuckDBDialect(session) });
}
