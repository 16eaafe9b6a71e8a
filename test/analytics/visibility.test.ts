/**
 * The visibility models of dbt-like-models/ (staging, snapshots, brand visibility, trend, share of voice, prompt
 * performance, API reconciliation) on a warehouse synced from the reference world, and their unit tests.
 */
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunResults, runProject } from '../../src/models/runner.js';
import { runUnitTests } from '../../src/models/unit-tests.js';
import { control } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { MODELS_DIR, type SyncedWorld, syncedWorld, WORLD_LAST_COMPLETE_DAY, WORLD_TODAY } from './support.js';

/** The models this suite owns; every one of their audits must pass on the synced world. */
const OWN_MODELS = [
  'staging.',
  'snapshots.',
  'intermediate.int_chats_by_provider',
  'intermediate.int_brand_mentions_per_chat',
  'marts.brand_visibility_daily',
  'marts.brand_visibility_trend',
  'marts.share_of_voice_daily',
  'marts.prompt_performance_daily',
  'marts.api_reconciliation',
];
const isOwn = (id: string) => OWN_MODELS.some((m) => (m.endsWith('.') ? id.startsWith(m) : id === m));

let world: SyncedWorld;
let db: Database;
let build: RunResults;

/** The day after `day`, 01:00 UTC (the build's horizon is the sync's, not this clock's). */
const clockAfter = (day: string) => new ManualClock(Date.parse(`${addDays(day, 1)}T01:00:00Z`));

beforeAll(async () => {
  // Synced up to the last complete day: the API's windows (the competitor list's) end on the build's last day.
  world = await syncedWorld({ until: WORLD_LAST_COMPLETE_DAY });
  db = await Database.open(world.dbPath);
  build = await runProject(db, await loadProject(MODELS_DIR), {
    command: 'build',
    threads: 2,
    // Time-range models stop at the last complete API day the sync recorded, whatever the clock says.
    clock: clockAfter(WORLD_TODAY),
    logger: silentLogger,
  });
}, 120_000);

afterAll(async () => {
  db?.close();
  await world?.cleanup();
});

async function rows<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
  return db.session.all<T>(sql);
}

describe('unit tests on hand-made fixtures', () => {
  it('every unit test of the project passes', async () => {
    const results = await runUnitTests(await loadProject(MODELS_DIR));
    const bad = results.filter((r) => r.status !== 'pass').map((r) => `${r.name}: ${r.message ?? r.status}`);
    expect(bad).toEqual([]);
    const tested = new Set(results.map((r) => r.model));
    for (const model of [
      'marts.brand_visibility_daily',
      'marts.brand_visibility_trend',
      'marts.share_of_voice_daily',
      'marts.prompt_performance_daily',
      'marts.api_reconciliation',
      'snapshots.prompts_history',
      'snapshots.competitors_history',
      'snapshots.actions_history',
    ]) {
      expect(tested, model).toContain(model);
    }
  });

  it('a fixture expecting the mean of provider rates instead of pooled counts fails', async () => {
    // The 'all' row of the own brand on 2026-01-01 pools 3 of 5 answers (60%); the mean of its chatgpt (50%) and
    // perplexity (100%) rates would be 75%. A copy of the project whose fixture says 75 must fail.
    const dir = tempDir('vwh-analytics-unit-').dir;
    try {
      cpSync(MODELS_DIR, dir, { recursive: true });
      const file = join(dir, 'tests/unit/brand_visibility_daily.yaml');
      const text = readFileSync(file, 'utf8');
      const tampered = text.replace(
        '{brand_id: O, provider: all, date: 2026-01-01, responses: 5, mentions: 3, visibility_pct: 60,',
        '{brand_id: O, provider: all, date: 2026-01-01, responses: 5, mentions: 3, visibility_pct: 75,',
      );
      expect(tampered).not.toBe(text);
      writeFileSync(file, tampered);
      const results = await runUnitTests(await loadProject(dir), (m) => m === 'marts.brand_visibility_daily');
      expect(results.map((r) => r.status)).toEqual(['fail']);
      expect(results[0]?.message).toContain('"75"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('build on a synced reference world', () => {
  it('builds every model; every audit of these models passes', () => {
    const broken = build.results
      .filter((r) => r.status === 'error' || r.status === 'fail' || r.status === 'skipped')
      .map((r) => `${r.id} ${r.status}: ${r.message ?? ''}`);
    expect(broken).toEqual([]);
    const own = build.results.filter((r) => isOwn(r.id));
    expect(own.length).toBeGreaterThanOrEqual(30);
    const failedAudits = own.flatMap((r) =>
      r.audits.filter((a) => a.status !== 'pass').map((a) => `${r.id}.${a.name}: ${a.failures}`),
    );
    expect(failedAudits).toEqual([]);
    for (const mart of ['brand_visibility_daily', 'brand_visibility_trend', 'share_of_voice_daily']) {
      const result = own.find((r) => r.id === `marts.${mart}`);
      expect(result?.audits.length, mart).toBeGreaterThan(3);
    }
  });

  it('api_reconciliation: our re-aggregation equals what the API served, within rounding', async () => {
    const [summary] = await rows<{
      n: number;
      disagreeing: number;
      max_vis: number;
      max_pos: number;
      max_sent: number;
      with_position: number;
    }>(`select count(*) as n, count(*) filter (where not within_rounding) as disagreeing,
          max(abs(visibility_diff_pp)) as max_vis, max(abs(position_diff)) as max_pos,
          max(abs(sentiment_diff)) as max_sent, count(position_diff) as with_position
        from marts.api_reconciliation`);
    const [expected] = await rows<{ n: number }>(
      `select count(*) as n from (select distinct prompt_id, platform, chat_date from raw.chats)`,
    );
    expect(summary?.n).toBe(expected?.n);
    expect(summary?.n).toBeGreaterThan(1000);
    expect(summary?.disagreeing).toBe(0);
    expect(summary?.max_vis).toBeLessThanOrEqual(0.0051);
    expect(summary?.max_pos).toBeLessThanOrEqual(0.0051);
    expect(summary?.max_sent).toBeLessThanOrEqual(0.0051);
    expect(summary?.with_position).toBeGreaterThan(100);
  });

  it('own-brand visibility recomputed from raw.chats equals the mart, for every provider and for all', async () => {
    const mismatches = await rows(`
      with chats as (
        select * from raw.chats qualify row_number() over (partition by team_id, id order by _extracted_at desc) = 1
      ),
      recomputed as (
        select project_id, coalesce(platform, 'all') as provider, chat_date as date,
               count(*) as responses, count(*) filter (where mentioned) as mentions
        from chats
        group by grouping sets ((project_id, platform, chat_date), (project_id, chat_date))
      ),
      mart as (
        select project_id, provider, date, responses, mentions
        from marts.brand_visibility_daily where is_own_brand
      )
      select * from recomputed full join mart using (project_id, provider, date)
      where recomputed.responses is distinct from mart.responses or recomputed.mentions is distinct from mart.mentions`);
    expect(mismatches).toEqual([]);
    const [all] = await rows<{ vis: number; days: number }>(`
      select 100 * sum(mentions) / sum(responses) as vis, count(distinct date) as days
      from marts.brand_visibility_daily where is_own_brand and provider = 'all'`);
    expect(all?.days).toBeGreaterThanOrEqual(55);
    // The own brand's base strength is 0.30..0.60 (docs/simulated-world.md), plus drift and action boosts.
    expect(all?.vis).toBeGreaterThan(20);
    expect(all?.vis).toBeLessThan(85);
  });

  it("competitor visibility pooled from the daily mart equals the API's competitor list over its window", async () => {
    const compared = await rows<{ name: string; api: number; ours: number }>(`
      with listed as (
        select project_id, competitor_id, competitor_name, window_from, window_to, visibility
        from staging.competitors
        where list_kind = 'active' and is_latest and has_metrics
          and competitor_id <> '00000000-0000-0000-0000-000000000000'
      )
      select listed.competitor_name as name, listed.visibility as api,
             100 * coalesce(sum(daily.mentions), 0) / any_value(responses.n) as ours
      from listed
      left join marts.brand_visibility_daily as daily
        on daily.project_id = listed.project_id and daily.brand_id = listed.competitor_id
        and daily.provider = 'all' and daily.date between listed.window_from and listed.window_to
      join (select project_id, window_from, window_to, count(*) as n
            from staging.chats join (select distinct project_id, window_from, window_to from listed) as w
              using (project_id)
            where chat_date between window_from and window_to group by all) as responses
        on responses.project_id = listed.project_id
      group by listed.project_id, listed.competitor_id, listed.competitor_name, listed.visibility`);
    expect(compared.length).toBeGreaterThanOrEqual(8);
    for (const c of compared) expect(Math.abs(c.ours - c.api), c.name).toBeLessThanOrEqual(0.0051);
  });

  it('share of voice: tracked shares add up to their denominator, all-brand shares to theirs', async () => {
    const [check] = await rows<{ days: number; bad_tracked: number; bad_all: number; untracked: number }>(`
      with days as (
        select project_id, provider, date,
               sum(tracked_brand_responses) filter (where is_tracked) as tracked_sum,
               any_value(tracked_mentions_total) as tracked_total,
               sum(brand_responses) as all_sum, any_value(all_mentions_total) as all_total,
               sum(sov_all_pct) as sov_all, sum(sov_tracked_pct) as sov_tracked,
               count(*) filter (where not is_tracked) as untracked
        from marts.share_of_voice_daily group by all
      )
      select count(*) as days,
             count(*) filter (where tracked_sum <> tracked_total
               or (tracked_total > 0 and abs(sov_tracked - 100) > 0.1)) as bad_tracked,
             count(*) filter (where all_sum <> all_total or (all_total > 0 and abs(sov_all - 100) > 0.2)) as bad_all,
             sum(untracked) as untracked
      from days`);
    expect(check?.days).toBeGreaterThan(400);
    expect(check?.bad_tracked).toBe(0);
    expect(check?.bad_all).toBe(0);
    // Market brands are named although nobody tracks them: the all-brands denominator must see them.
    expect(check?.untracked).toBeGreaterThan(0);
  });

  it('rolling windows equal calendar sums of the daily counts', async () => {
    // An independent computation: sums over date ranges of the daily mart (no window frames, no calendar fill).
    const [check] = await rows<{ n: number; bad_7d: number; bad_prev_7d: number; bad_prev_28d: number }>(`
      with sums as (
        select
          t.project_id, t.brand_id, t.provider, t.date, t.series_day,
          t.responses_7d, t.mentions_7d, t.responses_prev_7d, t.mentions_prev_7d, t.mentions_prev_28d,
          coalesce(sum(d.responses) filter (where d.date between t.date - 6 and t.date), 0) as r7,
          coalesce(sum(d.mentions) filter (where d.date between t.date - 6 and t.date), 0) as m7,
          coalesce(sum(d.responses) filter (where d.date between t.date - 13 and t.date - 7), 0) as rp7,
          coalesce(sum(d.mentions) filter (where d.date between t.date - 13 and t.date - 7), 0) as mp7,
          coalesce(sum(d.mentions) filter (where d.date between t.date - 55 and t.date - 28), 0) as mp28
        from marts.brand_visibility_trend as t
        left join marts.brand_visibility_daily as d
          on d.project_id = t.project_id and d.brand_id = t.brand_id and d.provider = t.provider
          and d.date between t.date - 55 and t.date
        group by all
      )
      select count(*) as n,
             count(*) filter (where responses_7d <> r7 or mentions_7d <> m7) as bad_7d,
             count(*) filter (where series_day >= 14 and (responses_prev_7d <> rp7 or mentions_prev_7d <> mp7))
               as bad_prev_7d,
             count(*) filter (where series_day >= 56 and mentions_prev_28d <> mp28) as bad_prev_28d
      from sums`);
    expect(check?.n).toBeGreaterThan(1000);
    expect(check?.bad_7d).toBe(0);
    expect(check?.bad_prev_7d).toBe(0);
    expect(check?.bad_prev_28d).toBe(0);
  });

  it('the trend moves where the world moves: completed actions lift the own brand, and only real changes are flagged', async () => {
    // The demo team's three completed actions (at 35%, 55% and 75% of the history) all raise the own brand's
    // strength, by up to 15 points on the prompts they target (docs/simulated-world.md). Over 60 days the own
    // brand's last 28 days must beat its first 28 days in every project.
    const lifts = await rows<{ project_id: string; first_28: number; last_28: number }>(`
      with own as (
        select project_id, date, responses, mentions from marts.brand_visibility_daily
        where is_own_brand and provider = 'all'
      ),
      bounds as (select project_id, min(date) as first_day, max(date) as last_day from own group by 1)
      select own.project_id,
             100 * sum(own.mentions) filter (where own.date < bounds.first_day + 28)
               / sum(own.responses) filter (where own.date < bounds.first_day + 28) as first_28,
             100 * sum(own.mentions) filter (where own.date > bounds.last_day - 28)
               / sum(own.responses) filter (where own.date > bounds.last_day - 28) as last_28
      from own join bounds using (project_id)
      group by own.project_id`);
    expect(lifts.length).toBe(2);
    for (const lift of lifts) expect(lift.last_28, lift.project_id).toBeGreaterThan(lift.first_28);

    // The per-test reading follows the intervals: its interval excludes 0, or it is false.
    const [flags] = await rows<{
      n: number;
      flagged: number;
      inconsistent: number;
      discovered: number;
      untested: number;
    }>(`
      select count(*) as n, count(*) filter (where wow_ci_excludes_zero) as flagged,
             count(*) filter (where wow_ci_excludes_zero <> (wow_ci_low_pp > 0 or wow_ci_high_pp < 0)) as inconsistent,
             count(*) filter (where wow_significant) as discovered,
             count(*) filter (where wow_significant and wow_p_value is null) as untested
      from marts.brand_visibility_trend where wow_delta_pp is not null`);
    expect(flags?.n).toBeGreaterThan(500);
    expect(flags?.inconsistent).toBe(0);
    // Week-to-week noise on a few dozen answers is large: most changes must not be flagged, and the FDR-controlled
    // decision (wow_significant) flags fewer still, and only tested changes.
    expect(flags?.flagged).toBeLessThan((flags?.n ?? 0) * 0.25);
    expect(flags?.discovered).toBeLessThanOrEqual(flags?.flagged ?? 0);
    expect(flags?.untested).toBe(0);
  });

  it('prompt performance carries the attributes of the synced snapshot and pools providers', async () => {
    const [check] = await rows<{ n: number; bad_all: number; no_type: number }>(`
      with per_provider as (
        select prompt_id, date, sum(responses) as responses, sum(mentions) as mentions
        from marts.prompt_performance_daily where provider <> 'all' group by all
      )
      select count(*) as n,
             count(*) filter (where a.responses <> p.responses or a.mentions <> p.mentions) as bad_all,
             count(*) filter (where a.prompt_type is null) as no_type
      from marts.prompt_performance_daily as a join per_provider as p using (prompt_id, date)
      where a.provider = 'all'`);
    expect(check?.n).toBeGreaterThan(300);
    expect(check?.bad_all).toBe(0);
    expect(check?.no_type).toBe(0);
    const [history] = await rows<{ versions: number; prompts: number }>(
      'select count(*) as versions, count(distinct prompt_id) as prompts from snapshots.prompts_history',
    );
    expect(history?.versions).toBe(history?.prompts);
    expect(history?.prompts).toBeGreaterThanOrEqual(12);
  });
});

describe('snapshots across two syncs', () => {
  it("keeps a prompt's old type and an action's old status, dated by sync day and by the API's updated_at", async () => {
    // Deactivate an active prompt and complete an open action on the API, move the world a day on, sync again into
    // a copy of the warehouse and build: the scd2 tables must hold both versions with the right dates.
    await db.session.run('CHECKPOINT');
    const copy = join(world.dir, 'second-day.duckdb');
    copyFileSync(world.dbPath, copy);
    const [prompt] = await rows<{ project_id: string; prompt_id: string }>(
      "select project_id, prompt_id from staging.prompts where prompt_type = 'active' order by prompt_id limit 1",
    );
    const [action] = await rows<{ project_id: string; action_id: string; status: string }>(
      "select project_id, action_id, status from staging.actions where status in ('suggested', 'accepted', 'in_progress') order by action_id limit 1",
    );
    if (!prompt || !action) throw new Error('the demo world has no active prompt or open action');
    const api = `${world.server.baseUrl}/projects`;
    const patch = async (path: string, body: unknown) => {
      const response = await fetch(`${api}/${path}`, {
        method: 'PATCH',
        headers: { 'X-API-Key': world.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBe(200);
    };
    await patch(`${prompt.project_id}/prompts/${prompt.prompt_id}`, { promptType: 'Inactive' });
    await patch(`${action.project_id}/actions/${action.action_id}`, { status: 'completed' });
    control.advanceClock(world.server.state, { days: 1 });
    const nextDay = addDays(WORLD_TODAY, 1);
    await world.sync(copy, nextDay);

    const second = await Database.open(copy);
    try {
      const results = await runProject(second, await loadProject(MODELS_DIR), {
        command: 'build',
        threads: 2,
        clock: clockAfter(nextDay),
        logger: silentLogger,
      });
      expect(results.results.filter((r) => r.status !== 'success').map((r) => `${r.id}: ${r.message}`)).toEqual([]);
      const versions = await second.session.all<{ prompt_type: string; valid_from: string; valid_to: string | null }>(
        `select prompt_type, strftime(valid_from, '%Y-%m-%d') as valid_from, strftime(valid_to, '%Y-%m-%d') as valid_to
         from snapshots.prompts_history where prompt_id = '${prompt.prompt_id}' order by valid_from`,
      );
      expect(versions).toEqual([
        { prompt_type: 'active', valid_from: WORLD_TODAY, valid_to: nextDay },
        { prompt_type: 'inactive', valid_from: nextDay, valid_to: null },
      ]);
      const unchanged = await second.session.all<{ n: number }>(
        `select count(*) as n from snapshots.prompts_history where prompt_id <> '${prompt.prompt_id}' and valid_to is not null`,
      );
      expect(unchanged[0]?.n).toBe(0);
      // "What was this prompt's type on that day": active on the first sync day, inactive on the second.
      const asOf = await second.session.all<{ date: string; prompt_type: string; attributes_source: string }>(
        `select strftime(date, '%Y-%m-%d') as date, prompt_type, attributes_source from marts.prompt_performance_daily
         where prompt_id = '${prompt.prompt_id}' and provider = 'all' and date >= '${WORLD_TODAY}' order by date`,
      );
      expect(asOf[0]).toEqual({ date: WORLD_TODAY, prompt_type: 'active', attributes_source: 'history' });

      const history = await second.session.all<{ status: string; valid_from: string; valid_to: string | null }>(
        `select status, strftime(valid_from, '%Y-%m-%d %H:%M') as valid_from, strftime(valid_to, '%Y-%m-%d %H:%M') as valid_to
         from snapshots.actions_history where action_id = '${action.action_id}' order by valid_from`,
      );
      const [completedAt] = await second.session.all<{ at: string }>(
        `select strftime(updated_at, '%Y-%m-%d %H:%M') as at from staging.actions where action_id = '${action.action_id}'`,
      );
      expect(completedAt?.at.startsWith(WORLD_TODAY)).toBe(true);
      expect(history).toHaveLength(2);
      expect(history[0]).toMatchObject({ status: action.status, valid_to: completedAt?.at });
      expect(history[1]).toEqual({ status: 'completed', valid_from: completedAt?.at, valid_to: null });
    } finally {
      second.close();
    }
  });
});
