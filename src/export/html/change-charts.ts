/**
 * The HTML report's two sections on what moved, from the `changes` report's rows: this week's alerts (the biggest
 * significant moves, each with its interval and the smallest change its test could see) and what changed since
 * yesterday, this week and this month (every brand, all providers), with share of voice beside it.
 */
import type { Chart } from './chart.js';
import { fmt, horizontalBars, num, people } from './chart-parts.js';
import type { ProjectData, Row } from './data.js';

/** How many moves the alerts chart shows. */
const ALERTS = 10;

const PERIOD: Record<string, string> = { day: 'since yesterday', week: 'this week', month: 'this month' };
const periodOf = (r: Row) => PERIOD[String(r.period)] ?? String(r.period);

/** The smallest and largest n of either side of the rows' changes: "57" or "57 to 2,016". */
function nSides(rows: Row[]): string {
  const ns = rows.flatMap((r) => [num(r.responses), num(r.responses_prev)]);
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  return lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`;
}

function label(r: Row, withProvider: boolean): string {
  return `${String(r.brand_name)}${withProvider && r.provider !== 'all' ? ` (${String(r.provider)})` : ''}, ${periodOf(r)}`;
}

/** The moves of the week and the month (and the day) that are discoveries, largest first; none: the largest moves. */
export function alertsChart(p: ProjectData): Chart {
  const significant = p.changes.filter((r) => r.significant === true);
  const shown = (significant.length > 0 ? significant : p.changes)
    .slice()
    .sort(
      (a, b) =>
        Math.abs(num(b.change_pp)) - Math.abs(num(a.change_pp)) ||
        String(a.brand_name).localeCompare(String(b.brand_name)),
    )
    .slice(0, ALERTS);
  const last = shown[0]?.date_to ?? p.changes[0]?.date_to ?? '–';
  const caption =
    significant.length > 0
      ? `The ${shown.length} largest of the ${significant.length} significant changes on ${last} (week against the ` +
        `week before, month against the month before, day against the day before; every provider): the change in ` +
        `points with its 95% interval, n = ${fmt(shown.reduce((s, r) => s + num(r.responses) + num(r.responses_prev), 0))} ` +
        `answers behind them. The MDE is the smallest change each test finds 80% of the time at the false discovery ` +
        `rate the alerts use; smaller true changes mostly go unseen.`
      : `No significant change on ${last}: the ${shown.length} largest moves (every provider), each with its 95% ` +
        `interval and the MDE, the change its test would have needed to see 80% of the time; n = ${nSides(shown)} ` +
        'answers a side.';
  return {
    key: 'alerts',
    title: "This week's alerts",
    caption,
    height: 40 + shown.length * 28,
    option: horizontalBars(
      shown.map((r) => label(r, true)),
      shown.map((r) => num(r.change_pp)),
      'change (points)',
      shown.map((r) => [num(r.change_ci_low_pp), num(r.change_ci_high_pp)]),
    ),
    table: {
      columns: [
        'brand',
        'provider',
        'period',
        'change (pp)',
        '95% interval',
        'MDE (pp)',
        'significant',
        'visibility now %',
        'before %',
        'answers (n)',
        'before (n)',
      ],
      rows: shown.map((r) => [
        String(r.brand_name),
        String(r.provider),
        periodOf(r),
        num(r.change_pp),
        `${people(num(r.change_ci_low_pp))} to ${people(num(r.change_ci_high_pp))}`,
        r.mde_pp === null ? null : num(r.mde_pp),
        r.significant === true ? 'yes' : 'no',
        num(r.visibility_pct),
        num(r.visibility_prev_pct),
        num(r.responses),
        num(r.responses_prev),
      ]),
    },
  };
}

/** Every brand's change on all providers: since yesterday, this week, this month, with share of voice. */
export function changesChart(p: ProjectData): Chart {
  const rows = p.changes.filter((r) => r.provider === 'all');
  const last = rows[0]?.date_to ?? '–';
  return {
    key: 'changes',
    title: 'What changed',
    caption:
      `Visibility of each brand on ${last} against the day before, in the 7 days to it against the 7 before and in ` +
      `the 28 days against the 28 before, all providers: the change in points with its 95% interval (week and month ` +
      `over the prompts answered in both windows), whether it is significant and its MDE; share of voice (tracked ` +
      `brands) over the same windows; n = ${nSides(rows)} answers a side. ` +
      `${rows.filter((r) => r.significant === true).length} of ${rows.length} changes are significant.`,
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => label(r, false)),
      rows.map((r) => num(r.change_pp)),
      'change (points)',
      rows.map((r) => [num(r.change_ci_low_pp), num(r.change_ci_high_pp)]),
    ),
    table: {
      columns: [
        'brand',
        'period',
        'visibility now %',
        'before %',
        'change (pp)',
        '95% interval',
        'significant',
        'MDE (pp)',
        'answers (n)',
        'before (n)',
        'share of voice now %',
        'before %',
        'share change (pp)',
      ],
      rows: rows.map((r) => [
        String(r.brand_name),
        periodOf(r),
        num(r.visibility_pct),
        num(r.visibility_prev_pct),
        num(r.change_pp),
        `${people(num(r.change_ci_low_pp))} to ${people(num(r.change_ci_high_pp))}`,
        r.significant === true ? 'yes' : 'no',
        r.mde_pp === null ? null : num(r.mde_pp),
        num(r.responses),
        num(r.responses_prev),
        r.sov_pct === null ? null : num(r.sov_pct),
        r.sov_prev_pct === null ? null : num(r.sov_prev_pct),
        r.sov_change_pp === null ? null : num(r.sov_change_pp),
      ]),
    },
  };
}

/** The two sections for a project, and the names of those without data (as projectCharts gives them). */
export function changeCharts(p: ProjectData): { charts: Chart[]; empty: string[] } {
  const all: [string, boolean, () => Chart][] = [
    ["This week's alerts", p.changes.length > 0, () => alertsChart(p)],
    ['What changed', p.changes.some((r) => r.provider === 'all'), () => changesChart(p)],
  ];
  return {
    charts: all.filter(([, has]) => has).map(([, , make]) => make()),
    empty: all.filter(([, has]) => !has).map(([name]) => name),
  };
}
