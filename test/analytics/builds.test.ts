/**
 * Same input, same bytes: two clean builds of the same raw rows, stored in another physical order, give model tables
 * equal to the last bit (no sum of doubles whose last digit depends on the order of its inputs).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunResults, runProject } from '../../src/models/runner.js';
import { type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { TODAY, tempDir } from '../fixtures.js';
import { MODELS_DIR, syncInto } from './support.js';

const dir = tempDir('vwh-builds-').dir;
const first = join(dir, 'first.duckdb');
const second = join(dir, 'second.duckdb');
let server: ReferenceServer;

async function build(path: string): Promise<RunResults> {
  const db = await Database.open(path);
  try {
    return await runProject(db, await loadProject(MODELS_DIR), {
      command: 'build',
      threads: 4,
      fullRefresh: true,
      clock: new ManualClock(Date.parse(`${addDays(TODAY, 1)}T01:00:00Z`)),
      logger: silentLogger,
    });
  } finally {
    db.close();
  }
}

/** Every model table as text, rows sorted: equal text means equal values to the last bit. */
async function contents(path: string): Promise<Record<string, string>> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    const tables = await db.session.all<{ name: string }>(
      "select table_schema || '.' || table_name as name from information_schema.tables " +
        "where table_schema in ('staging', 'intermediate', 'marts', 'snapshots') and table_type = 'BASE TABLE' order by 1",
    );
    const out: Record<string, string> = {};
    for (const { name } of tables) {
      const rows = await db.session.all<{ r: string }>(
        `select cast(to_json(t) as varchar) as r from ${name} as t order by 1`,
      );
      out[name] = rows.map((r) => r.r).join('\n');
    }
    return out;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  server = await startReferenceServer({
    port: 0,
    today: TODAY,
    demo: true,
    rateWindowMs: 200,
    seed: 11,
    projects: 1,
    prompts: 4,
    historyDays: 30,
  });
  await syncInto(server.url, server.demoApiKey ?? '', first, TODAY, 'default');
  copyFileSync(first, second);
  const db = await Database.open(second);
  try {
    const raw = await db.session.all<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = 'raw' and table_type = 'BASE TABLE'",
    );
    for (const { name } of raw) {
      await db.session.run(
        `create or replace table raw.${name} as select * from raw.${name} order by hash(to_json(raw.${name})) desc`,
      );
    }
  } finally {
    db.close();
  }
}, 180_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two clean builds', () => {
  it('of the same rows in another physical order are byte-equal', async () => {
    const [one, two] = [await build(first), await build(second)];
    expect(one.results.filter((r) => r.status === 'error')).toEqual([]);
    expect(two.results.map((r) => r.status)).toEqual(one.results.map((r) => r.status));
    const [a, b] = [await contents(first), await contents(second)];
    expect(Object.keys(a)).toContain('marts.brand_visibility_daily');
    const differing = Object.keys(a).filter((t) => a[t] !== b[t]);
    expect(differing).toEqual([]);
  }, 300_000);
});
