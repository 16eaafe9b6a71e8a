/**
 * marts.action_verdicts judged against the planted truth (`/_reference/truth/actions`): coverage and half-width of
 * the shrunk interval beside the unpooled one, conclusive verdicts and how many are wrong, and the calibration of
 * `p_positive` and `p_within_expected` (buckets of predicted probability against the share of actions where the
 * event truly happened). Shared by bench/action-calibration.ts (holdout worlds) and test/analytics/truth.test.ts
 * (the suite's worlds).
 */
import type { Database } from '../src/warehouse/duckdb.js';

export interface VerdictRow {
  team_id: string;
  action_id: string;
  title: string;
  category: string;
  method: string;
  unpooled_effect_pp: number;
  unpooled_ci_low_pp: number;
  unpooled_ci_high_pp: number;
  effect_pp: number;
  effect_ci_low_pp: number;
  effect_ci_high_pp: number;
  expected_impact_min: number | null;
  expected_impact_max: number | null;
  vs_expected: string | null;
  p_positive: number;
  p_within_expected: number | null;
  days_to_decide: number | null;
}

export interface TruthAction {
  action_id: string;
  effect_pp: number | null;
  verdict: string | null;
}

export interface ScoredAction {
  world: string;
  row: VerdictRow;
  truth: number;
  truthVerdict: string | null;
}

export async function verdictRows(db: Database): Promise<VerdictRow[]> {
  return (await db.session.all<Record<string, unknown>>('select * from marts.action_verdicts')).map((r) => ({
    ...(r as unknown as VerdictRow),
    days_to_decide: r.days_to_decide === null ? null : Number(r.days_to_decide),
  }));
}

/** The mart's rows with their planted effect; actions without one (no answers after) are left out. */
export function scoreWorld(world: string, rows: VerdictRow[], truth: TruthAction[]): ScoredAction[] {
  const byId = new Map(truth.map((t) => [t.action_id, t]));
  return rows.flatMap((row) => {
    const t = byId.get(row.action_id);
    return t && t.effect_pp !== null ? [{ world, row, truth: t.effect_pp, truthVerdict: t.verdict }] : [];
  });
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? (s[mid] as number)
      : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export interface CalibrationBucket {
  from: number;
  to: number;
  actions: number;
  mean_predicted: number;
  observed_share: number;
}

/** Buckets of width 0.2 (the last one closed): predicted probability against the share where the event held. */
export function calibration(points: Array<{ p: number; happened: boolean }>): CalibrationBucket[] {
  return [0, 0.2, 0.4, 0.6, 0.8].map((from) => {
    const to = from + 0.2;
    const inside = points.filter(({ p }) => p >= from && (to >= 1 ? p <= 1 : p < to));
    return {
      from,
      to: Math.round(to * 10) / 10,
      actions: inside.length,
      mean_predicted: inside.length ? inside.reduce((s, x) => s + x.p, 0) / inside.length : Number.NaN,
      observed_share: inside.length ? inside.filter((x) => x.happened).length / inside.length : Number.NaN,
    };
  });
}

export interface ActionScores {
  actions: number;
  coverage: number;
  unpooled_coverage: number;
  median_half_width_pp: number;
  unpooled_median_half_width_pp: number;
  /** 1 − shrunk / unpooled median half-width. */
  narrower: number;
  conclusive: number;
  conclusive_wrong: number;
  unpooled_conclusive: number;
  unpooled_conclusive_wrong: number;
  p_positive: CalibrationBucket[];
  p_within_expected: CalibrationBucket[];
  /** The worst |observed − mean predicted| over buckets of at least `minBucket` actions (both probabilities). */
  worst_bucket_gap: number;
}

const inside = (low: number, high: number, x: number) => low <= x && x <= high;

/** The unpooled verdict of marts.action_impact, recomputed from its interval (for the comparison). */
function unpooledVerdict(r: VerdictRow): string | null {
  if (r.expected_impact_min === null || r.expected_impact_max === null) return null;
  if (r.unpooled_ci_high_pp < r.expected_impact_min) return 'below';
  if (r.unpooled_ci_low_pp > r.expected_impact_max) return 'above';
  if (r.unpooled_ci_low_pp >= r.expected_impact_min && r.unpooled_ci_high_pp <= r.expected_impact_max) return 'within';
  return 'inconclusive';
}

export function scoreActions(scored: ScoredAction[], minBucket = 10): ActionScores {
  const hw = scored.map(({ row }) => (row.effect_ci_high_pp - row.effect_ci_low_pp) / 2);
  const uhw = scored.map(({ row }) => (row.unpooled_ci_high_pp - row.unpooled_ci_low_pp) / 2);
  const conclusive = scored.filter(({ row }) => row.vs_expected !== null && row.vs_expected !== 'inconclusive');
  const unpooled = scored.map((s) => ({ s, v: unpooledVerdict(s.row) })).filter(({ v }) => v && v !== 'inconclusive');
  const pPositive = calibration(scored.map(({ row, truth }) => ({ p: Number(row.p_positive), happened: truth > 0 })));
  const pWithin = calibration(
    scored
      .filter(({ row }) => row.p_within_expected !== null && row.expected_impact_min !== null)
      .map(({ row, truth }) => ({
        p: Number(row.p_within_expected),
        happened: inside(Number(row.expected_impact_min), Number(row.expected_impact_max), truth),
      })),
  );
  const gaps = [...pPositive, ...pWithin]
    .filter((b) => b.actions >= minBucket)
    .map((b) => Math.abs(b.observed_share - b.mean_predicted));
  return {
    actions: scored.length,
    coverage:
      scored.filter(({ row, truth }) => inside(row.effect_ci_low_pp, row.effect_ci_high_pp, truth)).length /
      scored.length,
    unpooled_coverage:
      scored.filter(({ row, truth }) => inside(row.unpooled_ci_low_pp, row.unpooled_ci_high_pp, truth)).length /
      scored.length,
    median_half_width_pp: median(hw),
    unpooled_median_half_width_pp: median(uhw),
    narrower: 1 - median(hw) / median(uhw),
    conclusive: conclusive.length,
    conclusive_wrong: conclusive.filter(({ row, truthVerdict }) => row.vs_expected !== truthVerdict).length,
    unpooled_conclusive: unpooled.length,
    unpooled_conclusive_wrong: unpooled.filter(({ s, v }) => v !== s.truthVerdict).length,
    p_positive: pPositive,
    p_within_expected: pWithin,
    worst_bucket_gap: gaps.length ? Math.max(...gaps) : 0,
  };
}

/** The calibration table as text: bucket, actions, mean predicted, observed share. */
export function calibrationTable(name: string, buckets: CalibrationBucket[]): string {
  const lines = buckets.map(
    (b) =>
      `  ${b.from.toFixed(1)}–${b.to.toFixed(1)}  ${String(b.actions).padStart(4)}  ` +
      `${Number.isNaN(b.mean_predicted) ? '   –' : b.mean_predicted.toFixed(2)}  ` +
      `${Number.isNaN(b.observed_share) ? '   –' : b.observed_share.toFixed(2)}`,
  );
  return [`${name}: bucket  actions  mean predicted  observed share`, ...lines].join('\n');
}
