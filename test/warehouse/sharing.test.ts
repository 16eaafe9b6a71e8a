/**
 * One DuckDB file shared by several callers: the instance of `withSharedInstance` keeps the settings it was made
 * with, and a kysely transaction on a session holds the session, so a statement sent straight through the session
 * waits for its end instead of landing (and being rolled back) inside it.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database, withSharedInstance } from '../../src/warehouse/duckdb.js';
import { DuckDBDialect } from '../../src/warehouse/kysely/index.js';
import { tempDir } from '../fixtures.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('vwh-sharing-').dir;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function settings(db: Database): Promise<{ threads: number; memory: string }> {
  const row = await db.session.one<{ threads: number; memory: string }>(
    "SELECT current_setting('threads') AS threads, current_setting('memory_limit') AS memory",
  );
  return { threads: Number(row?.threads), memory: String(row?.memory) };
}

describe('withSharedInstance', () => {
  it("keeps the first open's memory_limit and threads: a later open does not change them under the first", async () => {
    const file = join(dir, 'w.duckdb');
    const seen = await withSharedInstance(file, async () => {
      const first = await Database.open(file, { memory_limit: '300MB', threads: '3' });
      const second = await Database.open(file, { memory_limit: '100MB', threads: '1' });
      try {
        return { first: await settings(first), second: await settings(second) };
      } finally {
        second.close();
        first.close();
      }
    });
    expect(seen.first.threads).toBe(3);
    expect(seen.second).toEqual(seen.first);
    expect(seen.first.memory).toMatch(/^(286\.1 MiB|300\.0 MB)$/);
  });

  it('checkpoints the WAL as a statement before closing: the event loop turns while it runs, and nothing is lost', async () => {
    const file = join(dir, 'w.duckdb');
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    let atEnd = 0;
    await withSharedInstance(file, async () => {
      const db = await Database.open(file);
      try {
        // Enough rows that their checkpoint (kept in the WAL until the close) is work of its own.
        // (transactions under a row group each: a larger one goes to the file at its commit, not through the WAL)
        await db.session.run('CREATE TABLE t (id BIGINT, h VARCHAR)');
        for (let i = 0; i < 40; i++) {
          await db.session.run(
            `INSERT INTO t SELECT range, md5(range::VARCHAR) FROM range(${i * 7500}, ${(i + 1) * 7500})`,
          );
        }
        expect(statSync(`${file}.wal`).size).toBeGreaterThan(1_000_000);
      } finally {
        db.close();
      }
      setImmediate(tick);
      atEnd = turns;
    });
    ticking = false;
    // closeSync checkpointing on the loop would give no turn between the scope's end and its close
    expect(turns - atEnd).toBeGreaterThan(0);
    expect(existsSync(`${file}.wal`)).toBe(false);
    const db = await Database.open(file, { access_mode: 'READ_ONLY' });
    try {
      expect(await db.session.scalar('SELECT count(*) FROM t')).toBe(300000);
    } finally {
      db.close();
    }
  });

  it("the scope's own settings win over every open's", async () => {
    const file = join(dir, 'w.duckdb');
    const seen = await withSharedInstance(
      file,
      async () => {
        const db = await Database.open(file, { memory_limit: '100MB', threads: '1' });
        try {
          return await settings(db);
        } finally {
          db.close();
        }
      },
      { memory_limit: '200MB', threads: '2' },
    );
    expect(seen.threads).toBe(2);
    expect(seen.memory).toMatch(/^(190\.7 MiB|200\.0 MB)$/);
  });
});

describe('kysely transactions on a session', () => {
  it('a statement sent through the session while a kysely transaction is open lands after it, not inside it', async () => {
    const db = await Database.open(join(dir, 'k.duckdb'));
    try {
      const { session } = db;
      await session.run('CREATE TABLE t (who VARCHAR)');
      const kysely = new Kysely<Record<string, never>>({ dialect: new DuckDBDialect(session) });
      let outside: Promise<number> | undefined;
      await expect(
        kysely.transaction().execute(async (trx) => {
          await sql`INSERT INTO t VALUES ('kysely')`.execute(trx);
          outside = session.run("INSERT INTO t VALUES ('session')");
          // give the session's statement every chance to run now
          await new Promise((resolve) => setTimeout(resolve, 20));
          await sql`INSERT INTO t VALUES ('kysely again')`.execute(trx);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await outside;
      expect(await session.all('SELECT who FROM t')).toEqual([{ who: 'session' }]);
      // and a committed transaction keeps its rows, the session usable after it
      await kysely.transaction().execute(async (trx) => {
        await sql`INSERT INTO t VALUES ('committed')`.execute(trx);
      });
      expect(await session.scalar('SELECT count(*) FROM t')).toBe(2);
    } finally {
      db.close();
    }
  });
});
