/**
 * A chat id the API reuses for an answer of another prompt, landed by a later sync: the quarantine takes the id,
 * staging.chats is rebuilt in full, and every model below it must lose the id on the days it already built. The
 * incremental build after the collision must leave every table as a build from scratch of the same raw rows does,
 * also when the models below staging.chats are built in a later run than staging.chats itself.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunResults, runProject } from '../../src/models/runner.js';
import type { Project } from '../../src/models/types.js';
import { type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { TODAY, tempDir } from '../fixtures.js';
import { MODELS_DIR, syncInto } from './support.js';

const dir = tempDir('vwh-collision-').dir;
const built = join(dir, 'built.duckdb');
let server: ReferenceServer;
let project: Project;
let reused: string;

async function build(path: string, select?: string[]): Promise<RunResults> {
  const db = await Database.open(path);
  try {
    return await runProject(db, project, {
      command: 'build',
      threads: 2,
      ...(select ? { select } : {}),
      clock: new ManualClock(Date.parse(`${addDays(TODAY, 1)}T01:00:00Z`)),
      logger: silentLogger,
    });
  } finally {
    db.close();
  }
}

/**
 * The API answers another prompt of the project with the id of an answer from the first week, and a later sync
 * lands it on the newest day.
 */
async function collide(path: string): Promise<string> {
  const db = await Database.open(path);
  try {
    const [original] = await db.session.all<{ id: string; prompt_id: string }>(
      'select id, prompt_id from raw.chats where chat_date < (select min(chat_date) + 7 from raw.chats) order by id limit 1',
    );
    const { id, prompt_id } = original as { id: string; prompt_id: string };
    await db.session.run(
      `insert into raw.chats by name
       select * replace (
         (select min(prompt_id) from raw.chats where prompt_id <> '${prompt_id}') as prompt_id,
         date '${TODAY}' - 1 as chat_date,
         cast(date '${TODAY}' - 1 as timestamp) + interval 9 hour as date,
         now()::timestamp as _extracted_at
       )
       from raw.chats where id = '${id}'`,
    );
    return id;
  } finally {
    db.close();
  }
}

/** A copy of `path` with the same raw rows and no model or model state: what a build from scratch starts from. */
function scratchOf(path: string, name: string): string {
  const copy = join(dir, name);
  copyFileSync(path, copy);
  return copy;
}

async function dropModels(path: string): Promise<void> {
  const db = await Database.open(path);
  try {
    for (const schema of ['staging', 'intermediate', 'marts', 'snapshots']) {
      await db.session.run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
    for (const table of ['model_state', 'model_intervals', 'model_restated', 'model_runs'])
      await db.session.run(`DROP TABLE IF EXISTS ops.${table}`);
  } finally {
    db.close();
  }
}

/** Tables of `path` whose rows differ from those of `other` (multisets; doubles to 9 decimals). */
async function differing(path: string, other: string): Promise<string[]> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    await db.session.run(`ATTACH '${other}' AS other (READ_ONLY)`);
    const tables = await db.session.all<{ relation: string }>(
      `select schema_name || '.' || table_name as relation from duckdb_tables()
       where database_name = 'other' and schema_name in ('staging', 'intermediate', 'marts') order by 1`,
    );
    expect(tables.length).toBeGreaterThan(10);
    const out: string[] = [];
    for (const { relation } of tables) {
      const columns = (
        await db.session.all<{ name: string; type: string }>(
          `select column_name as name, data_type as type from duckdb_columns()
           where database_name = 'other' and schema_name || '.' || table_name = '${relation}' order by column_index`,
        )
      )
        .map((c) => (/^(DOUBLE|FLOAT|REAL)$/.test(c.type) ? `round("${c.name}", 9)` : `"${c.name}"`))
        .join(', ');
      const n = await db.session.scalar<bigint>(
        `select count(*) from (
           (select ${columns} from ${relation} except all select ${columns} from other.${relation})
           union all
           (select ${columns} from other.${relation} except all select ${columns} from ${relation}))`,
      );
      if (Number(n) > 0) out.push(`${relation}: ${n} rows differ`);
    }
    return out;
  } finally {
    db.close();
  }
}

/** Tables of `path` (beside the quarantine) that still hold the reused id. */
async function holding(path: string, id: string): Promise<string[]> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    const tables = await db.session.all<{ relation: string }>(
      `select distinct schema_name || '.' || table_name as relation from duckdb_columns()
       where column_name = 'chat_id' and schema_name in ('staging', 'intermediate', 'marts')
         and table_name <> 'chats_quarantine' order by 1`,
    );
    const out: string[] = [];
    for (const { relation } of tables) {
      const n = await db.session.scalar<bigint>(`select count(*) from ${relation} where chat_id = '${id}'`);
      if (Number(n) > 0) out.push(relation);
    }
    return out;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  project = await loadProject(MODELS_DIR);
  server = await startReferenceServer({
    port: 0,
    today: TODAY,
    demo: true,
    rateWindowMs: 200,
    seed: 5,
    projects: 1,
    prompts: 4,
    historyDays: 30,
  });
  await syncInto(server.url, server.demoApiKey ?? '', built, TODAY, 'default');
  const first = await build(built);
  expect(first.results.filter((r) => r.status === 'fail' || r.status === 'error')).toEqual([]);
  reused = await collide(built);
}, 300_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a chat id reused by a later sync', () => {
  it('an incremental build equals a build from scratch, and no model keeps the id', async () => {
    const scratch = scratchOf(built, 'scratch-1.duckdb');
    const nightly = scratchOf(built, 'nightly.duckdb');
    await dropModels(scratch);
    await build(scratch);
    const night = await build(nightly);
    expect(night.results.find((r) => r.id === 'staging.chats_quarantine')?.status).toBe('warn');
    expect(await holding(nightly, reused)).toEqual([]);
    expect(await differing(nightly, scratch)).toEqual([]);
  }, 300_000);

  it('also when the models below staging.chats are built by a later run', async () => {
    const scratch = scratchOf(built, 'scratch-2.duckdb');
    const split = scratchOf(built, 'split.duckdb');
    await dropModels(scratch);
    await build(scratch);
    // First only staging.chats (and what it reads), as `vwh models build --select +staging.chats` does.
    await build(split, ['+staging.chats']);
    await build(split);
    expect(await holding(split, reused)).toEqual([]);
    expect(await differing(split, scratch)).toEqual([]);
  }, 300_000);
});
