/**
 * The embedded default as a nightly job: the demo world is laid out backwards from its first day, so each night must
 * be the same world with its clock moved on, not a world started on the night's day (which changed the answers of
 * days already landed, and made marts.api_reconciliation fail its audit a few nights in: vwh run exit 11).
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runNightly } from '../../src/ops/nightly.js';
import { anchorPathOf } from '../../src/ops/paths.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { capture, tempDir, tinyWorld } from './support.js';

const ANSWERS = `select id, prompt_id, platform, chat_date::varchar as day, mentioned, position, sentiment, md5(full_content) as text
  from raw.chats where chat_date <= ? order by id`;

/** Audits that did not pass in the run's models stage (warn ones included: a run exits 0 with them). */
function auditsWarned(run: Awaited<ReturnType<typeof runNightly>>): unknown {
  return run.stages.find((s) => s.name === 'models')?.outcome.counts?.audits_warned;
}

async function answersUpTo(db: string, day: string): Promise<Record<string, unknown>[]> {
  const d = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    return await d.session.all(ANSWERS, [day]);
  } finally {
    d.close();
  }
}

describe('vwh run on the embedded default, night after night', () => {
  const t = tempDir('vwh-embedded-world-');
  afterAll(() => t.cleanup());

  // The world's clock starts at 06:00 of the night's day, so each run lands that day's on-time answers while the
  // models build stops at the day before: as a run by hand in the day does (every audit must still pass).
  it('keeps one world: the answers of days already landed do not change, and every night succeeds', async () => {
    const world = { seed: 5, projects: 1, prompts: 3, historyDays: 5 };
    const first = await runNightly(tinyWorld(t.db, '2026-04-10', { world }), { out: capture().out });
    expect(first.exitCode).toBe(0);
    expect(auditsWarned(first)).toBe(0);
    const anchor = JSON.parse(readFileSync(anchorPathOf(t.db), 'utf8'));
    expect(anchor).toEqual({ ...world, origin: '2026-04-10' });
    // Days before the first night's lookback are not fetched again; compare the whole history the first night held.
    const landed = await answersUpTo(t.db, '2026-04-08');
    expect(landed.length).toBeGreaterThan(0);
    for (const day of ['2026-04-11', '2026-04-12']) {
      const night = await runNightly(tinyWorld(t.db, day, { world }), { out: capture().out });
      expect(night.exitCode, day).toBe(0);
      expect(auditsWarned(night), day).toBe(0);
    }
    expect(await answersUpTo(t.db, '2026-04-08')).toEqual(landed);
    expect(JSON.parse(readFileSync(anchorPathOf(t.db), 'utf8')).origin).toBe('2026-04-10');
    // Counts are BIGINT in every model: DuckDB's sum() of a BIGINT is a HUGEINT, which Parquet readers get as
    // DECIMAL(38,0) and which costs the lake's row hash and write several times what a BIGINT does.
    const d = await Database.open(t.db, { access_mode: 'READ_ONLY' });
    try {
      const wide = await d.session.all<{ col: string }>(
        `select schema_name || '.' || table_name || '.' || column_name as col from duckdb_columns()
          where schema_name in ('staging', 'intermediate', 'snapshots', 'marts') and data_type in ('HUGEINT', 'UHUGEINT')
          order by col`,
      );
      expect(wide.map((r) => r.col)).toEqual([]);
    } finally {
      d.close();
    }
  }, 300_000);

  it('starts a world of its own for a warehouse that does not exist yet', async () => {
    const db = `${t.dir}/other.duckdb`;
    expect(existsSync(db)).toBe(false);
    const world = { seed: 61, projects: 2, prompts: 2, historyDays: 9 };
    const run = await runNightly(tinyWorld(db, '2026-05-02', { world }), { out: capture().out });
    expect(run.exitCode).toBe(0);
    expect(auditsWarned(run)).toBe(0);
    expect(JSON.parse(readFileSync(anchorPathOf(db), 'utf8')).origin).toBe('2026-05-02');
  }, 300_000);
});
