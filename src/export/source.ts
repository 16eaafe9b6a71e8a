/** The warehouse as every export reads it: opened read-only, so an export never blocks or changes it. */
import { existsSync } from 'node:fs';
import { VwhError } from '../core/errors.js';
import { DbFileRule } from '../core/rules.js';
import { Database } from '../warehouse/duckdb.js';
import { Session } from '../warehouse/session.js';

/** What every export connection sets first: timestamps are UTC instants, the hive `month` must not depend on the zone. */
const SESSION_SETUP = "SET TimeZone = 'UTC'";

/**
 * Opens `path` read-only with the session time zone set to UTC (timestamps are UTC instants in the warehouse;
 * casts to TIMESTAMPTZ and the hive `month` must not depend on the machine's zone). Throws USAGE when no file.
 */
export async function openForExport(path: string): Promise<Database> {
  const valid = DbFileRule.safeParse(path);
  if (!valid.success) throw new VwhError('USAGE', `--db ${valid.error.issues[0]?.message ?? 'is invalid'}.`);
  if (!existsSync(path)) {
    throw new VwhError(
      'USAGE',
      `No warehouse at ${path}. Fill one first (vwh run, or vwh sync then vwh models build), or point --db at an existing file.`,
    );
  }
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    await db.session.run(SESSION_SETUP);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Runs `fn` with the warehouse open read-only and closes it whatever happens. */
export async function withWarehouse<T>(path: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openForExport(path);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

/** Another connection on the export's warehouse, set up as its first (close its `connection` when done). */
export async function exportSession(db: Database): Promise<Session> {
  const connection = await db.connect();
  try {
    await connection.run(SESSION_SETUP);
  } catch (error) {
    connection.closeSync();
    throw error;
  }
  return Session.of(connection);
}
