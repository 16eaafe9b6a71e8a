/**
 * What the alerts can detect, on holdout worlds (not a timed bench; run by hand): per world, the reference server and
 * the production sync (test/analytics/support.ts), the trend mart built, and every tested change set against the
 * world's truth (test/analytics/trend-truth.ts). Prints and writes bench/results/alert-power.json:
 *
 * - per kind (wow, mom): of the true changes at least as large as the row's `*_mde_pp`, the share flagged the right
 *   way (target ≥ 50 %);
 * - weekly power against an oracle with the same n and false discovery rate (flagged the right way ÷ the oracle's
 *   expected discoveries; target ≥ 0.8), and the false share of weekly flags (wrong way or a true change under 1
 *   point; target ≤ 10 % over ≥ 50 flags);
 * - the prompt opportunities' top 10 rows (provider all) where the brand truly leads the best competitor by ≥ 5
 *   points (target ≤ 10 %).
 *
 *   npm run build && node dist/bench/alert-power.js
 *
 * HOLDOUT: chosen once (7 Dec 2026), before the first run, and never tuned on. The suite's worlds (seeds 5, 7, 13, 17,
 * 23, 47, 707) and the worlds the estimators were designed on (3, 11, 29) are not among them. Planted own-brand
 * shifts (two per project) give the weekly test true changes to find.
 */
import { join } from 'node:path';
import { Database } from '../src/warehouse/duckdb.js';
import { syncWorld, type WorldShape } from '../test/analytics/support.js';
import { buildWorld, type TrendChange, type TruthDay, trendChanges } from '../test/analytics/trend-truth.js';
import { resultsDir, round2, writeResult } from './lib.js';

/** The repository's models (bench/results/../../dbt-like-models), whether run from bench/ or dist/bench/. */
const MODELS_DIR = join(resultsDir, '..', '..', 'dbt-like-models');

export const HOLDOUT: WorldShape[] = [
  { seed: 61, projects: 3, prompts: 15, historyDays: 120, ownShifts: 2 },
  { seed: 83, projects: 2, prompts: 20, historyDays: 120, ownShifts: 2 },
  { seed: 97, projects: 3, prompts: 10, historyDays: 120, ownShifts: 2 },
  { seed: 131, projects: 2, prompts: 25, historyDays: 120 },
];

async function build(db: Database, select: string[]): Promise<void> {
  const failed = await buildWorld(db, MODELS_DIR, select);
  if (failed.length > 0) throw new Error(failed.join('\n'));
}

interface OpportunityRow {
  project_id: string;
  prompt_id: string;
  list: string;
  score_rank: number;
  window_from: string;
  window_to: string;
}

/** The top 10 'win' prompts of each project (provider all), each with its true lead of the brand, in points. */
async function opportunityLeads(baseUrl: string, db: Database): Promise<number[]> {
  const rows = await db.session.all<OpportunityRow>(`
    select project_id, prompt_id, list, score_rank, cast(window_from as varchar) as window_from,
      cast(window_to as varchar) as window_to
    from marts.prompt_opportunities
    where provider = 'all' and is_listed and list = 'win' and score_rank <= 10`);
  const leads: number[] = [];
  for (const projectId of new Set(rows.map((r) => r.project_id))) {
    const mine = rows.filter((r) => r.project_id === projectId);
    const first = mine[0];
    if (!first) continue;
    const res = await fetch(
      `${baseUrl}/_reference/truth/visibility?project_id=${projectId}&by=prompt&date_from=${first.window_from}&date_to=${first.window_to}`,
    );
    const truth = ((await res.json()) as { rows: Array<TruthDay & { is_own_brand?: boolean }> }).rows.filter(
      (t) => t.provider === 'all',
    );
    const own = await db.session.one<{ brand_id: string }>(
      `select brand_id from staging.tracked_brands where project_id = $1 and is_own_brand limit 1`,
      [projectId],
    );
    for (const row of mine) {
      // mean true visibility over the window, per brand, of this prompt
      const per = new Map<string, { sum: number; n: number }>();
      for (const t of truth.filter((x) => x.prompt_id === row.prompt_id)) {
        const m = per.get(t.brand_id) ?? { sum: 0, n: 0 };
        m.sum += t.visibility_pct;
        m.n++;
        per.set(t.brand_id, m);
      }
      const mean = (id: string) => {
        const m = per.get(id);
        return m && m.n > 0 ? m.sum / m.n : 0;
      };
      const ownTruth = mean(own?.brand_id ?? '');
      const best = Math.max(0, ...[...per.keys()].filter((id) => id !== own?.brand_id).map(mean));
      leads.push(ownTruth - best);
    }
  }
  return leads;
}

const rightWay = (c: TrendChange) => c.row.discovered && Math.sign(c.row.delta_pp) === Math.sign(c.truePp);
const wrong = (c: TrendChange) => Math.sign(c.truePp) !== Math.sign(c.row.delta_pp) || Math.abs(c.truePp) < 1;
const share = (k: number, n: number) => (n === 0 ? 0 : round2((100 * k) / n));

async function main(): Promise<void> {
  const changes: TrendChange[] = [];
  const leads: number[] = [];
  const perWorld: Record<string, unknown>[] = [];
  for (const shape of HOLDOUT) {
    const started = performance.now();
    const world = await syncWorld(shape);
    try {
      const db = await Database.open(world.dbPath);
      try {
        await build(db, ['+marts.brand_visibility_trend', '+marts.prompt_opportunities']);
        const scored = await trendChanges(world.server.url, db, shape.seed);
        changes.push(...scored.changes);
        const worldLeads = await opportunityLeads(world.server.url, db);
        leads.push(...worldLeads);
        const weeklyFlags = scored.changes.filter((c) => c.row.metric === 'wow' && c.row.discovered);
        perWorld.push({
          ...shape,
          tested_changes: scored.changes.length,
          weekly_flags: weeklyFlags.length,
          weekly_flags_wrong: weeklyFlags.filter(wrong).length,
          top10_rows: worldLeads.length,
          top10_brand_leads_5pp: worldLeads.filter((l) => l >= 5).length,
          seconds: Math.round((performance.now() - started) / 1000),
        });
        console.info(JSON.stringify(perWorld.at(-1)));
      } finally {
        db.close();
      }
    } finally {
      await world.cleanup();
    }
  }
  const figures: Record<string, number> = {};
  for (const metric of ['wow', 'mom'] as const) {
    const list = changes.filter((c) => c.row.metric === metric);
    const atMde = list.filter((c) => c.row.mde_pp !== null && Math.abs(c.truePp) >= c.row.mde_pp);
    figures[`${metric}_tested`] = list.length;
    figures[`${metric}_true_at_least_mde`] = atMde.length;
    figures[`${metric}_true_at_least_mde_flagged_right_pct`] = share(atMde.filter(rightWay).length, atMde.length);
    figures[`${metric}_mde_median_pp`] = round2(median(list.map((c) => c.row.mde_pp ?? Number.NaN)));
    const flags = list.filter((c) => c.row.discovered);
    figures[`${metric}_flags`] = flags.length;
    figures[`${metric}_flags_wrong`] = flags.filter(wrong).length;
    figures[`${metric}_flags_wrong_pct`] = share(flags.filter(wrong).length, flags.length);
    const real = list.filter((c) => Math.abs(c.truePp) >= 1);
    const oracle = real.reduce((s, c) => s + c.oracle, 0);
    figures[`${metric}_power_vs_oracle`] = oracle > 0 ? round2(real.filter(rightWay).length / oracle) : 0;
  }
  figures.top10_rows = leads.length;
  figures.top10_brand_leads_5pp = leads.filter((l) => l >= 5).length;
  figures.top10_brand_leads_5pp_pct = share(figures.top10_brand_leads_5pp, leads.length);
  const result = {
    name: 'alert-power',
    description:
      'Holdout worlds (seeds 61, 83, 97, 131; never tuned on): the trend mart’s MDE against true changes, weekly ' +
      'power against an oracle with the same n and FDR, the false share of weekly flags, and the prompt ' +
      'opportunities’ top-10 rows where the brand truly leads by ≥ 5 points.',
    ratios: {
      wow_power_vs_oracle: figures.wow_power_vs_oracle ?? 0,
      mom_power_vs_oracle: figures.mom_power_vs_oracle ?? 0,
    },
    figures,
    targets: {
      wow_mde: {
        target: '≥ 50 % of true changes ≥ wow_mde_pp flagged the right way',
        met: (figures.wow_true_at_least_mde_flagged_right_pct ?? 0) >= 50,
      },
      mom_mde: {
        target: '≥ 50 % of true changes ≥ mom_mde_pp flagged the right way',
        met: (figures.mom_true_at_least_mde_flagged_right_pct ?? 0) >= 50,
      },
      wow_power: { target: 'weekly power ≥ 0.8 × the oracle', met: (figures.wow_power_vs_oracle ?? 0) >= 0.8 },
      wow_false_share: {
        target: '≤ 10 % of weekly flags wrong, over ≥ 50 flags',
        met: (figures.wow_flags ?? 0) >= 50 && (figures.wow_flags_wrong_pct ?? 100) <= 10,
      },
      opportunities: {
        target: '≤ 10 % of top-10 rows where the brand truly leads by ≥ 5 points (over at least one row)',
        met: leads.length > 0 && (figures.top10_brand_leads_5pp_pct ?? 100) <= 10,
      },
    },
    details: {
      worlds: perWorld,
      // every wrong weekly flag, to read why
      wrong_weekly_flags: changes
        .filter((c) => c.row.metric === 'wow' && c.row.discovered && wrong(c))
        .map((c) => ({
          seed: c.seed,
          provider: c.row.provider,
          own: c.row.is_own_brand,
          date: c.row.date,
          delta_pp: c.row.delta_pp,
          ci: [c.row.ci_low_pp, c.row.ci_high_pp],
          true_pp: round2(c.truePp),
          n: c.row.n,
          mde_pp: c.row.mde_pp,
        })),
    },
  };
  console.info(JSON.stringify(result.figures, null, 2));
  console.info(`written ${writeResult(result)}`);
}

function median(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

await main();
