/**
 * Acceptance of the analytics against the world's ground truth (`/_reference/truth/…`), on demo worlds of seeds
 * that are not the demo's (42) and of several sizes: marts.action_impact's interval covers the true effect of the
 * completed actions, a conclusive verdict agrees with the truth's, and marts.action_impact_by_category's interval
 * covers the mean planted effect of its actions; the trend's alerts point the right way at true
 * changes of at least 1 point; the share of voice report's tracked-share interval covers the true share. The estimators were designed on seeds 3, 11 and 29 (3 × 5 × 60, 2 × 6 × 60,
 * 3 × 5 × 62); these worlds are others. The figures are printed (and quoted in docs/lab/2026-11-analytics-truth.md):
 *   npx vitest run test/analytics/truth.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  calibrationTable,
  type ScoredAction,
  scoreActions,
  scoreWorld,
  verdictRows,
} from '../../bench/action-scores.js';
import { addDays } from '../../src/core/days.js';
import { findReport, loadReports } from '../../src/export/reports/catalog.js';
import { runReport } from '../../src/export/reports/run.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { impactFloors } from './floor.js';
import { MODELS_DIR, type SyncedWorld, syncWorld, WORLD_TODAY, type WorldShape } from './support.js';
import { buildWorld, type SwitchedOff, type TrendChange, type TruthDay, trendChanges } from './trend-truth.js';

const SHAPES: WorldShape[] = [
  { seed: 5, projects: 3, prompts: 5, historyDays: 62 },
  { seed: 17, projects: 2, prompts: 10, historyDays: 90 },
  { seed: 23, projects: 3, prompts: 6, historyDays: 75 },
];

interface ActionRow extends Record<string, unknown> {
  team_id: string;
  action_id: string;
  effect_pp: number | null;
  effect_ci_low_pp: number | null;
  effect_ci_high_pp: number | null;
  vs_expected: string | null;
  method: string;
}
interface TruthAction {
  action_id: string;
  effect_pp: number | null;
  verdict: string | null;
}

/** Each scored action with its binomial floor (test/analytics/floor.ts: the half-width from its answer counts alone). */
const scored: Array<{ seed: number; mart: ActionRow; truth: TruthAction; floor: number | undefined }> = [];

/**
 * Worlds scored for action impact only (marts.action_impact and marts.action_impact_by_category), beside SHAPES:
 * seed 707 is where the pooled estimates once made a wrong verdict conclusive (docs/lab/2026-11-action-impact.md).
 */
const IMPACT_SHAPES: WorldShape[] = [
  { seed: 707, projects: 3, prompts: 20, historyDays: 120 },
  { seed: 13, projects: 5, prompts: 6, historyDays: 90 },
];
interface CategoryRow extends Record<string, unknown> {
  team_id: string;
  category: string;
  n_actions: number;
  effect_pp: number;
  effect_ci_low_pp: number;
  effect_ci_high_pp: number;
  vs_expected: string | null;
}
/** Each category row (and 'all') with the mean of its actions' planted effects. */
const categories: Array<{ seed: number; row: CategoryRow; truth: number }> = [];
/** marts.action_verdicts' rows (the shrunk effects) with their planted effect. */
const verdicts: ScoredAction[] = [];

async function scoreImpact(world: SyncedWorld, db: Database, seed: number): Promise<void> {
  const rows = await db.session.all<ActionRow & { category: string; team_id: string }>(
    'select * from marts.action_impact',
  );
  const truth = await getJson<{ actions: TruthAction[] }>(world, '/_reference/truth/actions');
  const floors = await impactFloors(db);
  for (const t of truth.actions) {
    if (t.effect_pp === null) continue;
    const mart = rows.find((r) => r.action_id === t.action_id);
    expect(mart, `marts.action_impact has completed action ${t.action_id}`).toBeDefined();
    if (mart) scored.push({ seed, mart, truth: t, floor: floors.get(`${mart.team_id}/${mart.action_id}`) });
  }
  verdicts.push(...scoreWorld(String(seed), await verdictRows(db), truth.actions));
  const truthOf = new Map(truth.actions.map((t) => [t.action_id, t.effect_pp]));
  for (const row of await db.session.all<CategoryRow>('select * from marts.action_impact_by_category')) {
    const effects = rows
      .filter((r) => r.team_id === row.team_id && r.effect_pp !== null)
      .filter((r) => row.category === 'all' || r.category === row.category)
      .map((r) => truthOf.get(r.action_id))
      .filter((x): x is number => typeof x === 'number');
    expect(effects.length, `${row.category}: a planted effect for every pooled action`).toBe(Number(row.n_actions));
    categories.push({ seed, row, truth: effects.reduce((a, b) => a + b, 0) / effects.length });
  }
}

/** Tracked share of voice (provider all) over the 28 days before the world's today, by the report, and the truth's. */
const sovScored: Array<{ seed: number; brand: string; est: number; low: number; high: number; truth: number }> = [];

async function scoreShareOfVoice(world: SyncedWorld, db: Database, seed: number): Promise<void> {
  const from = addDays(WORLD_TODAY, -28);
  const to = addDays(WORLD_TODAY, -1);
  const result = await runReport(db, findReport('share_of_voice', loadReports()), { from, to });
  const rows = result.rows.map((r) => Object.fromEntries(result.columns.map((c, i) => [c, r[i]])));
  for (const projectId of new Set(rows.map((r) => String(r.project_id)))) {
    // The true share: expected answers naming the brand over expected tracked mentions, summed over the days.
    const truth = await getJson<{ rows: TruthDay[] }>(
      world,
      `/_reference/truth/visibility?project_id=${projectId}&date_from=${from}&date_to=${to}`,
    );
    const named = new Map<string, number>();
    let mentions = 0;
    for (const t of truth.rows.filter((x) => x.provider === 'all')) {
      const expected = (t.answers * t.visibility_pct) / 100;
      named.set(t.brand_id, (named.get(t.brand_id) ?? 0) + expected);
      mentions += expected;
    }
    for (const r of rows) {
      if (r.project_id !== projectId || r.provider !== 'all' || r.sov_tracked_pct === null) continue;
      const expected = named.get(String(r.brand_key));
      if (expected === undefined) continue;
      sovScored.push({
        seed,
        brand: String(r.brand_name),
        est: Number(r.sov_tracked_pct),
        low: Number(r.sov_tracked_ci_low_pct),
        high: Number(r.sov_tracked_ci_high_pct),
        truth: (100 * expected) / mentions,
      });
    }
  }
}

/** Every tested change of the trend with its truth, and the month-over-month tests switched off, per world. */
const changes: TrendChange[] = [];
const switchedOff: SwitchedOff[] = [];

async function scoreTrend(world: SyncedWorld, db: Database, seed: number): Promise<void> {
  const scored = await trendChanges(world.server.url, db, seed);
  changes.push(...scored.changes);
  switchedOff.push(scored.switchedOff);
}

const worlds: SyncedWorld[] = [];

async function getJson<T>(world: SyncedWorld, path: string): Promise<T> {
  const res = await fetch(`${world.server.url}${path}`);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

/** Builds the selected models of a synced world as the night after WORLD_TODAY would; every audit must pass. */
async function build(db: Database, select: string[]): Promise<void> {
  expect(await buildWorld(db, MODELS_DIR, select)).toEqual([]);
}

async function measure(shape: WorldShape, impactOnly = false): Promise<void> {
  {
    const world = await syncWorld(shape);
    worlds.push(world);
    const db = await Database.open(world.dbPath);
    try {
      await build(
        db,
        impactOnly
          ? ['+marts.action_impact_by_category', '+marts.action_verdicts']
          : [
              '+marts.action_impact_by_category',
              '+marts.action_verdicts',
              '+marts.brand_visibility_trend',
              '+marts.share_of_voice_daily',
            ],
      );
      await scoreImpact(world, db, shape.seed);
      if (impactOnly) return;
      await scoreTrend(world, db, shape.seed);
      await scoreShareOfVoice(world, db, shape.seed);
    } finally {
      db.close();
    }
  }
}

/**
 * A world with planted own-brand changes (the reference's `ownShifts`: two per project, one up and one down, 6–10
 * points, in the second half of the history), scored for the trend only. The own brand's true month-over-month
 * changes of 5 points or more are one or two episodes a world in SHAPES (one project a world, one change lasting
 * weeks): three draws cannot tell 0.6 of the oracle from 1.0; this world adds about six. Seed 47 is none of the seeds
 * the trend was designed on.
 */
const OWN_SHIFT_WORLD: WorldShape = { seed: 47, projects: 3, prompts: 5, historyDays: 100, ownShifts: 2 };

async function measureTrendOnly(shape: WorldShape): Promise<void> {
  const world = await syncWorld(shape);
  worlds.push(world);
  const db = await Database.open(world.dbPath);
  try {
    await build(db, ['+marts.brand_visibility_trend']);
    await scoreTrend(world, db, shape.seed);
  } finally {
    db.close();
  }
}

// One world after the other: on a 2-core box concurrent syncs only compete for the CPU.
beforeAll(async () => {
  for (const shape of SHAPES) await measure(shape);
  for (const shape of IMPACT_SHAPES) await measure(shape, true);
  await measureTrendOnly(OWN_SHIFT_WORLD);
}, 900_000);

afterAll(async () => {
  for (const w of worlds) await w.cleanup();
});

const inside = (mart: ActionRow, x: number | null) =>
  x !== null &&
  mart.effect_ci_low_pp !== null &&
  mart.effect_ci_high_pp !== null &&
  mart.effect_ci_low_pp <= x &&
  x <= mart.effect_ci_high_pp;

describe('marts.action_impact against the planted truth', () => {
  it('covers the true effect of at least 90% of the completed actions, and its verdicts are not contradicted', () => {
    expect(scored.length).toBeGreaterThanOrEqual(15);
    const covered = scored.filter(({ mart, truth }) => inside(mart, truth.effect_pp));
    const conclusive = scored.filter(({ mart }) => mart.vs_expected !== 'inconclusive');
    const right = conclusive.filter(({ mart, truth }) => mart.vs_expected === truth.verdict);
    // Not contradicted: a conclusive verdict equal to the truth's, or inconclusive with the truth inside.
    const agree = scored.filter(({ mart, truth }) =>
      mart.vs_expected === 'inconclusive' ? inside(mart, truth.effect_pp) : mart.vs_expected === truth.verdict,
    );
    const bias = scored.reduce((s, { mart, truth }) => s + ((mart.effect_pp ?? 0) - (truth.effect_pp ?? 0)), 0);
    const methods = new Map<string, number>();
    for (const { mart } of scored) methods.set(mart.method, (methods.get(mart.method) ?? 0) + 1);
    console.info(
      `action_impact on seeds ${[...SHAPES, ...IMPACT_SHAPES].map((s) => s.seed).join(', ')}: ${scored.length} completed actions ` +
        `(${[...methods].map(([m, n]) => `${m} ${n}`).join(', ')}), coverage ${covered.length}/${scored.length}, ` +
        `verdict equal to the truth's ${right.length}/${scored.length}, conclusive ${conclusive.length} ` +
        `(wrong ${conclusive.length - right.length}), not contradicted ${agree.length}/${scored.length}, ` +
        `mean error ${(bias / scored.length).toFixed(2)} pp, median half-width ${median(halfWidths()).toFixed(2)} pp`,
    );
    for (const { seed, mart, truth } of scored) {
      console.info(
        `  seed ${seed} ${mart.method} truth ${truth.effect_pp} (${truth.verdict}) est ${mart.effect_pp?.toFixed(2)} [${mart.effect_ci_low_pp?.toFixed(2)}, ${mart.effect_ci_high_pp?.toFixed(2)}] ${mart.vs_expected}`,
      );
    }
    expect(covered.length / scored.length).toBeGreaterThanOrEqual(0.9);
    expect(agree.length / scored.length).toBeGreaterThanOrEqual(0.85);
    // At most one conclusive verdict in ten is wrong (of the conclusive ones: none wrong while fewer than ten).
    expect(conclusive.length - right.length).toBeLessThanOrEqual(Math.floor(conclusive.length / 10));
  });
});

const halfWidths = () =>
  scored
    .filter(({ mart }) => mart.effect_ci_low_pp !== null && mart.effect_ci_high_pp !== null)
    .map(({ mart }) => ((mart.effect_ci_high_pp ?? 0) - (mart.effect_ci_low_pp ?? 0)) / 2);

/**
 * The median half-width on these five worlds before issue 25's changes (the models of commit bb10d8a; measured in
 * docs/lab/2026-11-action-impact.md): what the floor-allowed reduction is measured from.
 */
const BEFORE_MEDIAN_HALF_WIDTH = 21.42;

describe('marts.action_impact against its binomial floor', () => {
  it('is never narrower than the floor, and its median half-width stays within 1.3 times the floor', () => {
    const measured = scored.filter(({ mart }) => mart.effect_pp !== null);
    const floors = measured.map(({ floor }) => floor ?? Number.NaN);
    expect(floors.every((f) => Number.isFinite(f) && f > 0)).toBe(true);
    const hw = measured.map(({ mart }) => ((mart.effect_ci_high_pp ?? 0) - (mart.effect_ci_low_pp ?? 0)) / 2);
    const ratios = hw.map((h, i) => h / (floors[i] ?? Number.NaN));
    const allowed = 1 - median(floors) / BEFORE_MEDIAN_HALF_WIDTH;
    const reached = 1 - median(hw) / BEFORE_MEDIAN_HALF_WIDTH;
    const byMethod = ['did_prompts', 'placebo_brands'].map((m) => {
      const r = ratios.filter((_, i) => measured[i]?.mart.method === m);
      return `${m} ${median(r).toFixed(2)} (${r.length})`;
    });
    console.info(
      `action_impact floor: median floor ${median(floors).toFixed(2)} pp, median half-width ${median(hw).toFixed(2)} pp, ` +
        `median half-width / floor ${median(ratios).toFixed(3)} (${byMethod.join(', ')}; min ${Math.min(...ratios).toFixed(3)}, ` +
        `max ${Math.max(...ratios).toFixed(3)}); from the ${BEFORE_MEDIAN_HALF_WIDTH} pp before, the floor allows ` +
        `${(100 * allowed).toFixed(1)}%, reached ${(100 * reached).toFixed(1)}% (${(reached / allowed).toFixed(2)} of it)`,
    );
    // An interval under its binomial floor claims more than its answers hold (a variance lost on the way).
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(0.999);
    // Measured 1.2 on these worlds (docs/lab/2026-11-action-impact.md): a change that widens the intervals fails here.
    expect(median(ratios)).toBeLessThanOrEqual(1.3);
  });
});

describe('marts.action_verdicts (shrunk effects) against the planted truth', () => {
  it('covers 90%, is 25% narrower than the unpooled estimate, no conclusive verdict wrong, its probabilities calibrated', () => {
    const s = scoreActions(verdicts);
    console.info(
      `action_verdicts on seeds ${[...SHAPES, ...IMPACT_SHAPES].map((w) => w.seed).join(', ')}: ${s.actions} actions, ` +
        `coverage ${s.coverage.toFixed(3)} (unpooled ${s.unpooled_coverage.toFixed(3)}), median half-width ` +
        `${s.median_half_width_pp.toFixed(2)} pp against ${s.unpooled_median_half_width_pp.toFixed(2)} unpooled ` +
        `(${(100 * s.narrower).toFixed(1)}% narrower), conclusive ${s.conclusive} (wrong ${s.conclusive_wrong})\n` +
        `${calibrationTable('p_positive', s.p_positive)}\n${calibrationTable('p_within_expected', s.p_within_expected)}`,
    );
    expect(s.actions).toBe(scored.filter(({ mart }) => mart.effect_pp !== null).length);
    expect(s.coverage).toBeGreaterThanOrEqual(0.9);
    expect(s.narrower).toBeGreaterThanOrEqual(0.25);
    expect(s.conclusive_wrong).toBeLessThanOrEqual(Math.floor(s.conclusive / 20));
    // p_positive and p_within_expected: every bucket of at least 10 actions within ± 0.15 of its observed share.
    for (const [name, buckets] of [
      ['p_positive', s.p_positive],
      ['p_within_expected', s.p_within_expected],
    ] as const)
      for (const b of buckets.filter((x) => x.actions >= 10))
        expect(Math.abs(b.observed_share - b.mean_predicted), `${name} ${b.from}–${b.to}`).toBeLessThanOrEqual(0.15);
  });
});

describe('marts.action_impact_by_category against the planted truth', () => {
  it("covers the mean planted effect of each category (and of 'all') for at least 90% of the rows", () => {
    const covered = categories.filter(
      ({ row, truth }) => row.effect_ci_low_pp <= truth && truth <= row.effect_ci_high_pp,
    );
    const conclusive = categories.filter(({ row }) => row.vs_expected !== null && row.vs_expected !== 'inconclusive');
    console.info(
      `action_impact_by_category: ${covered.length} of ${categories.length} intervals cover the mean planted effect ` +
        `(${categories.filter(({ row }) => row.category === 'all').length} portfolio rows), median half-width ` +
        `${median(categories.map(({ row }) => (row.effect_ci_high_pp - row.effect_ci_low_pp) / 2)).toFixed(2)} pp, ` +
        `${conclusive.length} conclusive`,
    );
    for (const { seed, row, truth } of categories)
      console.info(
        `  seed ${seed} ${row.category} (${row.n_actions}) truth mean ${truth.toFixed(2)} est ${Number(row.effect_pp).toFixed(2)} [${Number(row.effect_ci_low_pp).toFixed(2)}, ${Number(row.effect_ci_high_pp).toFixed(2)}] ${row.vs_expected}`,
      );
    expect(categories.length).toBeGreaterThanOrEqual(15);
    expect(categories.filter(({ row }) => row.category === 'all')).toHaveLength(SHAPES.length + IMPACT_SHAPES.length);
    expect(covered.length / categories.length).toBeGreaterThanOrEqual(0.9);
  });
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

describe('marts.brand_visibility_trend alerts against the true changes', () => {
  const wrong = (c: (typeof changes)[number]) =>
    Math.sign(c.truePp) !== Math.sign(c.row.delta_pp) || Math.abs(c.truePp) < 1;
  const bad = (list: typeof changes) => list.filter(wrong).length;
  const rightWay = (c: (typeof changes)[number]) =>
    c.row.discovered && Math.sign(c.row.delta_pp) === Math.sign(c.truePp);

  it('tests the month-over-month changes a prompt added or stopped used to switch off (the fixed panel)', () => {
    const changed = switchedOff.reduce((s, x) => s + x.changes, 0);
    const off = switchedOff.reduce((s, x) => s + x.off, 0);
    const panel = switchedOff.reduce((s, x) => s + x.panel, 0);
    console.info(
      `trend on seeds ${[...SHAPES, OWN_SHIFT_WORLD].map((s) => s.seed).join(', ')}: ${changes.length} tested changes; month over month ` +
        `${off} of ${changed} changes not tested (${pct(off, changed)}), ${panel} tested on a panel without the ` +
        'prompts that started or stopped',
    );
    expect(changed).toBeGreaterThan(100);
    // Only an alias or a competitor's tracking switches a test off now (was 77% of the tests with the prompt events).
    expect(off / changed).toBeLessThanOrEqual(0.1);
    expect(panel).toBeGreaterThan(0);
  });

  it('has at most 10% of its flags (and of its alerts) pointing the wrong way or at a true change under 1 point', () => {
    const discovered = changes.filter((c) => c.row.discovered);
    const alerts = changes.filter((c) => c.row.alert);
    for (const metric of ['wow', 'mom'] as const) {
      const d = discovered.filter((c) => c.row.metric === metric);
      const a = alerts.filter((c) => c.row.metric === metric);
      console.info(
        `  ${metric}: ${d.length} flags (*_significant), ${bad(d)} wrong way or under 1 pp (${pct(bad(d), d.length)}); ` +
          `${a.length} alerts, ${bad(a)} wrong`,
      );
    }
    expect(discovered.length).toBeGreaterThan(30);
    expect(bad(discovered) / discovered.length).toBeLessThanOrEqual(0.1);
    expect(alerts.length).toBeGreaterThan(10);
    expect(bad(alerts) / alerts.length).toBeLessThanOrEqual(0.1);
    const monthly = discovered.filter((c) => c.row.metric === 'mom');
    expect(monthly.length).toBeGreaterThan(30);
    expect(bad(monthly) / monthly.length).toBeLessThanOrEqual(0.1);
    // Week over week has few flags at these sizes: too few to show a share under 10%, enough to refute it. Its wrong
    // flags must be no more than a 10% rate would give with probability 5% (one-sided binomial tail).
    const weekly = discovered.filter((c) => c.row.metric === 'wow');
    expect(binomialTail(bad(weekly), weekly.length, 0.1)).toBeGreaterThan(0.05);
  });

  it('says what it can detect: true changes at least the row’s MDE are flagged the right way at least half the time', () => {
    for (const metric of ['wow', 'mom'] as const) {
      const list = changes.filter((c) => c.row.metric === metric);
      // every tested change carries its MDE, beyond the test's margin
      expect(list.every((c) => c.row.mde_pp !== null && c.row.mde_pp > (metric === 'wow' ? 1 : 0.5))).toBe(true);
      const seen = list.filter((c) => c.row.mde_pp !== null && Math.abs(c.truePp) >= c.row.mde_pp);
      const flagged = seen.filter(rightWay).length;
      console.info(
        `  ${metric}: median MDE ${median(list.map((c) => c.row.mde_pp ?? 0)).toFixed(2)} pp; true changes >= MDE: ` +
          `${flagged} of ${seen.length} flagged the right way (${pct(flagged, seen.length)})`,
      );
      if (metric === 'mom') expect(seen.length).toBeGreaterThanOrEqual(20);
      if (seen.length > 0) expect(flagged / seen.length).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('flags true changes as often as the sample allows: power by |true change| / se, and the own brand month over month', () => {
    for (const metric of ['wow', 'mom'] as const) {
      const list = changes.filter((c) => c.row.metric === metric);
      const bins = [0, 1, 2, 3, 4, 6, Number.POSITIVE_INFINITY];
      const curve = bins.slice(0, -1).map((lo, i) => {
        const hi = bins[i + 1] ?? Number.POSITIVE_INFINITY;
        const inBin = list.filter((c) => Math.abs(c.truePp) / c.trueSe >= lo && Math.abs(c.truePp) / c.trueSe < hi);
        const oracle = inBin.reduce((sum, c) => sum + c.oracle, 0);
        return `[${lo}, ${hi === Number.POSITIVE_INFINITY ? '∞' : hi}): ${pct(inBin.filter(rightWay).length, inBin.length)} of ${inBin.length} (oracle ${pct(oracle, inBin.length)})`;
      });
      console.info(
        `  power ${metric}, share of true changes flagged the right way by |true Δ| / se: ${curve.join('; ')}`,
      );
    }
    // The issue's figure: all providers, month over month, true |Δ| >= 5 points, for the own brand (SHAPES and the
    // world with planted own-brand changes) and for every brand.
    const big = changes.filter((c) => c.row.metric === 'mom' && c.row.provider === 'all' && Math.abs(c.truePp) >= 5);
    const figure = (list: typeof changes, who: string) => {
      const flagged = list.filter(rightWay).length;
      const oracle = list.reduce((sum, c) => sum + c.oracle, 0);
      console.info(
        `  ${who}, all providers, month over month, true |Δ| >= 5 pp: ${flagged} of ${list.length} flagged the right ` +
          `way (${pct(flagged, list.length)}); an oracle with the same n and FDR: ${pct(oracle, list.length)}`,
      );
      return { flagged, oracle, n: list.length };
    };
    const own = figure(
      big.filter((c) => c.row.is_own_brand),
      'own brand',
    );
    const every = figure(big, 'every brand');
    // Enough own-brand rows to be more than two or three episodes (162 rows, about nine episodes, measured).
    expect(own.n).toBeGreaterThanOrEqual(150);
    expect(every.n).toBeGreaterThanOrEqual(50);
    // >= 60%, or where the sample bounds it, >= 0.8 of what the oracle reaches.
    expect(own.flagged / own.n >= 0.6 || own.flagged >= 0.8 * own.oracle).toBe(true);
    expect(every.flagged / every.n >= 0.6 || every.flagged >= 0.8 * every.oracle).toBe(true);
  });
});

const pct = (k: number, n: number) => (n === 0 ? '–' : `${((100 * k) / n).toFixed(1)}%`);

/** P(X >= k) for X ~ Binomial(n, p). */
function binomialTail(k: number, n: number, p: number): number {
  let tail = 0;
  let term = (1 - p) ** n; // P(X = 0)
  for (let i = 0; i <= n; i++) {
    if (i >= k) tail += term;
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return tail;
}

describe('the share of voice report against the true shares', () => {
  it('covers the true tracked share of at least 90% of the brands, over the last 28 days', () => {
    expect(sovScored.length).toBeGreaterThanOrEqual(15);
    const covered = sovScored.filter((s) => s.low - 0.005 <= s.truth && s.truth <= s.high + 0.005);
    const width = sovScored.map((s) => s.high - s.low).sort((a, b) => a - b);
    const errors = sovScored.map((s) => Math.abs(s.est - s.truth));
    console.log(
      `tracked share of voice on seeds ${SHAPES.map((s) => s.seed).join(', ')}: ${covered.length} of ${sovScored.length} ` +
        `intervals cover the true share; median width ${width[Math.floor(width.length / 2)]?.toFixed(1)} points, ` +
        `mean |error| ${(errors.reduce((a, b) => a + b, 0) / errors.length).toFixed(2)} points`,
    );
    for (const s of sovScored.filter((x) => !covered.includes(x)))
      console.log(`  miss: seed ${s.seed} ${s.brand} truth ${s.truth.toFixed(2)} est ${s.est} [${s.low}, ${s.high}]`);
    expect(covered.length / sovScored.length).toBeGreaterThanOrEqual(0.9);
  });
});
