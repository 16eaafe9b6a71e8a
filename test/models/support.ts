import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunOptions, type RunResults, runProject } from '../../src/models/runner.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';

export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface Sandbox {
  dir: string;
  modelsDir: string;
  dbPath: string;
  db: Database;
  clock: ManualClock;
  cleanup(): void;
}

/** A temp folder with a copy of a fixture project (or none) and a warehouse file in it. */
export async function sandbox(fixture?: string): Promise<Sandbox> {
  const dir = tempDir('vwh-models-').dir;
  const modelsDir = join(dir, 'models');
  mkdirSync(modelsDir);
  if (fixture) cpSync(join(fixturesDir, fixture), modelsDir, { recursive: true });
  const dbPath = join(dir, 'warehouse.duckdb');
  const db = await Database.open(dbPath);
  return {
    dir,
    modelsDir,
    dbPath,
    db,
    clock: new ManualClock(Date.UTC(2026, 0, 6, 3)),
    cleanup() {
      try {
        db.close();
      } catch {
        // already closed
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes model files (path under the models folder → text). */
export function writeModels(modelsDir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(modelsDir, path)), { recursive: true });
    writeFileSync(join(modelsDir, path), text);
  }
}

/** raw.chats: `perDay` chats a day for project p1 from 2026-01-01 for `days` days; raw.projects: two projects. */
export async function seedRaw(db: Database, days = 5, perDay = 4): Promise<void> {
  await db.session.run('CREATE SCHEMA IF NOT EXISTS raw');
  await db.session.run(`CREATE OR REPLACE TABLE raw.chats AS
    SELECT row_number() OVER () AS id, CAST(DATE '2026-01-01' + CAST(d AS INTEGER) AS DATE) AS day, 'p1' AS project_id,
           ['acme', 'globex'][1 + (i % 2)] AS brand, i % 4 <> 3 AS mentioned, 1 + i % 3 AS position
    FROM range(${days}) AS t(d), range(${perDay}) AS u(i)`);
  await db.session.run(`CREATE OR REPLACE TABLE raw.projects AS
    SELECT * FROM (VALUES (1, 'Alpha', 'active', TIMESTAMP '2026-01-01 00:00:00'),
                          (2, 'Beta', 'active', TIMESTAMP '2026-01-01 00:00:00')) AS t(id, name, status, updated_at)`);
}

/** Adds one day of chats (the day after the last one). */
export async function addDay(db: Database, day: string, perDay = 4): Promise<void> {
  await db.session.run(`INSERT INTO raw.chats
    SELECT (SELECT max(id) FROM raw.chats) + i + 1, DATE '${day}', 'p1', ['acme', 'globex'][1 + (i % 2)], i % 4 <> 3, 1 + i % 3
    FROM range(${perDay}) AS u(i)`);
}

export async function build(
  s: Sandbox,
  options: Partial<RunOptions> = {},
): Promise<RunResults & { byId: (id: string) => RunResults['results'][number] }> {
  const project = await loadProject(s.modelsDir);
  const results = await runProject(s.db, project, {
    command: 'build',
    clock: s.clock,
    logger: silentLogger,
    ...options,
  });
  return {
    ...results,
    byId: (id: string) => {
      const r = results.results.find((x) => x.id === id);
      if (!r) throw new Error(`no result for ${id}: ${results.results.map((x) => x.id).join(', ')}`);
      return r;
    },
  };
}
