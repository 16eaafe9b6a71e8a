import { Kysely } from 'kysely';
import type { Session } from '../session.js';
import { DuckDBDialect } from './duckdb-dialect.js';
import type { OpsDatabase } from './ops-database.js';

export { DuckDBDialect } from './duckdb-dialect.js';
export type { OpsDatabase } from './ops-database.js';

const bySession = new WeakMap<Session, Kysely<OpsDatabase>>();

/**
 * The typed kysely instance for the ops tables on `session` (and inside its transactions): one per session, so its
 * driver's mutex is the session's one.
 */
export function opsDb(session: Session): Kysely<OpsDatabase> {
  let db = bySession.get(session);
  if (!db) {
    db = new Kysely<OpsDatabase>({ dialect: new DuckDBDialect(session) });
    bySession.set(session, db);
  }
  return db;
}
