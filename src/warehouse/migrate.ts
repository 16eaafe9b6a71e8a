import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { opsDb } from './kysely/index.js';
import { dbError, type Session } from './session.js';

/** sql/ at the project root, whether running from src/ (vitest) or dist/src/ (built). */
export function defaultMigrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'sql');
    if (existsSync(join(candidate, '001_ops.sql'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('sql/ migrations folder not found above src/warehouse');
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Numbered files `NNN_name.sql`, in version order. */
export function readMigrations(dir = defaultMigrationsDir()): Migration[] {
  return readdirSync(dir)
    .map((file) => /^(\d+)_(.+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2] ?? '', sql: readFileSync(join(dir, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Applies the migrations not yet recorded in ops.schema_migrations, each in its own transaction with its record.
 * Re-running applies nothing. Returns the versions applied.
 */
export async function migrate(session: Session, dir?: string): Promise<number[]> {
  await session.run('CREATE SCHEMA IF NOT EXISTS ops');
  await session.run(
    'CREATE TABLE IF NOT EXISTS ops.schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)',
  );
  const db = opsDb(session);
  const done = new Set(
    (await db.selectFrom('ops.schema_migrations').select('version').execute()).map((r) => r.version),
  );
  const applied: number[] = [];
  for (const migration of readMigrations(dir)) {
    if (done.has(migration.version)) continue;
    try {
      await session.transaction(async () => {
        await sql.raw(migration.sql).execute(db);
        await db
          .insertInto('ops.schema_migrations')
          .values({ version: migration.version, name: migration.name, applied_at: new Date() })
          .execute();
      });
    } catch (error) {
      throw dbError(`Migration ${migration.version}_${migration.name} failed`, error);
    }
    applied.push(migration.version);
  }
  return applied;
}
