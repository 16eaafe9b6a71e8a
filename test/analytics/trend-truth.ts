/**
 * The trend mart's tested changes set against the reference world's truth (`/_reference/truth/visibility?by=prompt`):
 * the true change of the mart's fixed panel, its binomial standard error and what an oracle test with the same n and
 * false discovery rate would discover. Shared by test/analytics/truth.test.ts (the suite's seeds) and
 * bench/alert-power.ts (the holdout worlds).
 */
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { runProject } from '../../src/models/runner.js';
import type { Database } from '../../src/warehouse/duckdb.js';
import { WORLD_TODAY } from './support.js';

/**
 * Builds the selected models of the models folder `modelsDir` on a world synced as of WORLD_TODAY, as the night
 * after it would; returns the nodes that failed (an error or an audit), as `id: message`.
 */
export async function buildWorld(db: Database, modelsDir: string, select: string[]): Promise<string[]> {
  const result = await runProject(db, await loadProject(modelsDir), {
    command: 'build',
    threads: 2,
    select,
    clock: new ManualClock(Date.parse(`${addDays(WORLD_TODAY, 1)}T01:00:00Z`)),
    logger: silentLogger,
  });
  return result.results.filter((r) => r.status === 'error' || r.status === 'fail').map((r) => `${r.id}: ${r.message}`);
}

async function getJson<T>(baseUrl: string, path: string): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

export interface TrendRow extends Record<string, unknown> {
  project_id: string;
  brand_id: string;
  is_own_brand: boolean;
  provider: string;
  date: string;
  metric: 'wow' | 'mom';
  delta_pp: number;
  ci_low_pp: number;
  ci_high_pp: number;
  n: number;
  n_prev: number;
  p_value: number;
  /** The FDR-controlled decision (`*_significant`). */
  discovered: boolean;
  alert: boolean;
  /** The largest p-value Benjamini–Hochberg discovered in the row's family (team, day, kind), or q / m when none. */
  p_cut: number;
  /** The mart's minimum detectable change at 80% power (`*_mde_pp`). */
  mde_pp: number | null;
}
export interface TruthDay {
  date: string;
  provider: string;
  brand_id: string;
  answers: number;
  visibility_pct: number;
  /** Present in the per-prompt truth (`by=prompt`). */
  prompt_id?: string;
}
/**
 * Every tested change with the true change of what the mart estimates and the probability that an oracle discovers
 * it: a test that knows the true standard error at the row's n (the panel's answers) and rejects at the same p-value
 * cutoff as the row's Benjamini–Hochberg family, so with the same n and FDR.
 */
export interface TrendChange {
  seed: number;
  row: TrendRow;
  truePp: number;
  trueSe: number;
  oracle: number;
}

/**
 * The true change of the mart's fixed panel over two windows, from the per-prompt truth: the prompts answered in both
 * windows, each prompt's mean expected visibility over the days it was answered in each window, and the change as
 * the Mantel–Haenszel weighted mean of the prompts' changes (weights n·n_prev/(n + n_prev), n = answered days), as
 * the mart weighs its strata. Returns the change and the weighted levels of both windows (percent), or null.
 */
export function panelTruth(
  prompts: Map<string, Map<string, TruthDay>>,
  current: [string, string],
  previous: [string, string],
): { change: number; current: number; previous: number } | null {
  let weight = 0;
  let change = 0;
  let now = 0;
  let before = 0;
  const mean = (days: Map<string, TruthDay>, [from, to]: [string, string]) => {
    let n = 0;
    let sum = 0;
    for (let d = from; d <= to; d = addDays(d, 1)) {
      const t = days.get(d);
      if (t === undefined) continue;
      n++;
      sum += t.visibility_pct;
    }
    return { n, mean: n > 0 ? sum / n : 0 };
  };
  for (const days of prompts.values()) {
    const a = mean(days, current);
    const b = mean(days, previous);
    if (a.n === 0 || b.n === 0) continue;
    const w = (a.n * b.n) / (a.n + b.n);
    weight += w;
    change += w * (a.mean - b.mean);
    now += w * a.mean;
    before += w * b.mean;
  }
  return weight > 0 ? { change: change / weight, current: now / weight, previous: before / weight } : null;
}

/** Month-over-month changes of a world: how many, how many not tested, how many tested on a reduced panel. */
export interface SwitchedOff {
  seed: number;
  changes: number;
  off: number;
  panel: number;
}

/**
 * Every tested change of marts.brand_visibility_trend (built in `db`) with its truth from the reference world at
 * `baseUrl`, and the month-over-month counts of tests switched off.
 */
export async function trendChanges(
  baseUrl: string,
  db: Database,
  seed: number,
): Promise<{ changes: TrendChange[]; switchedOff: SwitchedOff }> {
  const changes: TrendChange[] = [];
  const counts = await db.session.one<{ changes: number; off: number; panel: number }>(`
    select count(*)::int as changes, (count(*) filter (where mom_p_value is null))::int as off,
      (count(*) filter (where mom_prompts_left_out > 0 and mom_p_value is not null))::int as panel
    from marts.brand_visibility_trend where mom_delta_pp is not null and mom_delta_pp <> 0`);
  const switchedOff = { seed, changes: counts?.changes ?? 0, off: counts?.off ?? 0, panel: counts?.panel ?? 0 };
  const rows = await db.session.all<TrendRow>(`
    with tests as (
      select team_id, project_id, brand_id, is_own_brand, provider, cast(date as varchar) as date, 'wow' as metric,
        wow_delta_pp as delta_pp, wow_ci_low_pp as ci_low_pp, wow_ci_high_pp as ci_high_pp,
        wow_panel_responses as n, wow_panel_prev_responses as n_prev, wow_p_value as p_value,
        wow_significant as discovered, wow_alert as alert, wow_mde_pp as mde_pp, 0.01 as q
      from marts.brand_visibility_trend where wow_p_value is not null
      union all
      select team_id, project_id, brand_id, is_own_brand, provider, cast(date as varchar), 'mom', mom_delta_pp,
        mom_ci_low_pp, mom_ci_high_pp, mom_panel_responses, mom_panel_prev_responses, mom_p_value, mom_significant,
        mom_alert, mom_mde_pp, 0.05
      from marts.brand_visibility_trend where mom_p_value is not null
    )
    select * exclude (q, team_id),
      coalesce(max(p_value) filter (where discovered) over f, q / count(*) over f) as p_cut
    from tests
    window f as (partition by team_id, date, metric)`);
  // Per project: brand|provider -> prompt -> day -> the prompt's expected visibility (the truth per prompt).
  const byProject = new Map<string, Map<string, Map<string, Map<string, TruthDay>>>>();
  for (const projectId of new Set(rows.map((r) => r.project_id))) {
    const truth = await getJson<{ rows: TruthDay[] }>(
      baseUrl,
      `/_reference/truth/visibility?project_id=${projectId}&by=prompt`,
    );
    const series = new Map<string, Map<string, Map<string, TruthDay>>>();
    for (const t of truth.rows) {
      const key = `${t.brand_id}|${t.provider}`;
      const prompts = series.get(key) ?? new Map<string, Map<string, TruthDay>>();
      const days = prompts.get(t.prompt_id ?? '') ?? new Map<string, TruthDay>();
      days.set(t.date, t);
      prompts.set(t.prompt_id ?? '', days);
      series.set(key, prompts);
    }
    byProject.set(projectId, series);
  }
  for (const row of rows) {
    const prompts = byProject.get(row.project_id)?.get(`${row.brand_id}|${row.provider}`);
    if (!prompts) continue;
    const span = row.metric === 'wow' ? 7 : 28;
    const truth = panelTruth(
      prompts,
      [addDays(row.date, 1 - span), row.date],
      [addDays(row.date, 1 - 2 * span), addDays(row.date, -span)],
    );
    if (truth === null) continue;
    const { current, previous } = truth;
    const truePp = truth.change;
    const trueSe =
      100 *
      Math.sqrt(
        ((current / 100) * (1 - current / 100)) / Math.max(row.n, 1) +
          ((previous / 100) * (1 - previous / 100)) / Math.max(row.n_prev, 1),
      );
    // The oracle discovers the change when its estimate, N(truePp, trueSe²), exceeds 1 point by the family's cutoff.
    const margin = row.metric === 'wow' ? 1 : 0.5;
    const oracle = normalCdf((Math.abs(truePp) - margin) / trueSe - normalQuantile(1 - row.p_cut));
    changes.push({ seed, row, truePp, trueSe, oracle });
  }
  return { changes, switchedOff };
}

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 on erf, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** The standard normal quantile, by bisection on normalCdf (the tests call it a few thousand times). */
export function normalQuantile(p: number): number {
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
