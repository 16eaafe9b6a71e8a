/**
 * The HTML report's action verdicts: a forest plot of each completed action's effect (marts.action_verdicts, shrunk
 * toward what the team's other actions did) with its 95% interval against the expected range, then each category
 * and the portfolio (marts.action_impact_by_category), and a sentence a marketer reads per action, from the
 * probabilities (GrowthBook's and Eppo's way: a chance in words, the effect with its interval, what it takes to know
 * more).
 */
import type { Chart } from './chart.js';
import { intervalBars, num, type RenderApi } from './chart-parts.js';
import type { ProjectData, Row } from './data.js';
import type { ChartOption } from './svg.js';

const maybe = (v: unknown) => (v === null || v === undefined ? null : num(v));

/** "9 in 10": a probability rounded to tenths, as a person reads it (never 0 or 10 in 10: nothing here is certain). */
export function inTen(p: number): string {
  return `${Math.min(9, Math.max(1, Math.round(10 * p)))} in 10`;
}

const VERDICT_WORDS: Record<string, string> = {
  within: 'did what was promised',
  above: 'did more than was promised',
  below: 'fell short of what was promised',
};

/**
 * One action's headline: the mart's verdict in words when it is conclusive, else the probabilities; then how long a
 * clearer answer takes (days_to_decide).
 */
export function verdictSentence(r: Row): string {
  const parts: string[] = [];
  const verdict = r.vs_expected as string | null;
  if (verdict && VERDICT_WORDS[verdict]) parts.push(VERDICT_WORDS[verdict] as string);
  parts.push(`likely helped: ${inTen(num(r.p_positive))}`);
  const within = maybe(r.p_within_expected);
  if (within !== null) parts.push(`within what was promised: ${inTen(within)}`);
  const days = maybe(r.days_to_decide);
  if (verdict === 'inconclusive') {
    parts.push(
      days === null
        ? 'no clear answer expected within a year'
        : `a clearer answer in about ${days} day${days === 1 ? '' : 's'}`,
    );
  }
  return parts.join('; ');
}

const label = (text: string) => (text.length > 34 ? `${text.slice(0, 33)}…` : text);
const CATEGORY_NAME = (c: string) => (c === 'all' ? 'All actions (portfolio)' : `Category: ${c.replaceAll('_', ' ')}`);

/** The expected range of each row as a light band (rows without a range have none). */
function ranges(points: [number, number, number][]): object {
  return {
    type: 'custom',
    name: 'expected range',
    silent: true,
    itemStyle: { color: '#b2dfb6' },
    data: points,
    encode: { y: 0, x: [1, 2] },
    z: 1,
    renderItem: (_params: unknown, api: RenderApi) => {
      const low = api.coord([api.value(1), api.value(0)]);
      const high = api.coord([api.value(2), api.value(0)]);
      const band = (api.size([0, 1])[1] ?? 0) * 0.7;
      return {
        type: 'rect',
        shape: { x: low[0], y: (low[1] ?? 0) - band / 2, width: (high[0] ?? 0) - (low[0] ?? 0), height: band },
        style: { fill: '#b2dfb6' },
      };
    },
  };
}

export function forestChart(p: ProjectData): Chart {
  const actions = p.verdicts;
  const rows: Row[] = [...actions, ...p.categories.map((c) => ({ ...c, title: CATEGORY_NAME(String(c.category)) }))];
  // the top row first: ECharts draws a category axis from the bottom
  const order = rows.map((_, i) => i).reverse();
  const labels = order.map((i) => label(String(rows[i]?.title)));
  const at = (i: number) => order.indexOf(i);
  const isAction = (i: number) => i < actions.length;
  const withRange = rows
    .map((r, i) => [i, r] as const)
    .filter(([, r]) => r.expected_impact_min !== null && r.expected_impact_max !== null);
  const series: object[] = [
    ranges(withRange.map(([i, r]) => [at(i), num(r.expected_impact_min), num(r.expected_impact_max)])),
    intervalBars(
      'unpooled 95% interval',
      actions.map((r, i) => [at(i), num(r.unpooled_low), num(r.unpooled_high)]),
      '#9aa1ad',
      1,
    ),
    intervalBars(
      '95% interval',
      rows.map((r, i) => [at(i), num(r.ci_low), num(r.ci_high)]),
      '#1d2330',
      2,
    ),
    {
      type: 'scatter',
      name: 'effect',
      symbolSize: 9,
      itemStyle: { color: '#d9480f' },
      data: rows.map((r, i) => [num(r.effect_pp), at(i)]),
      markLine: { silent: true, symbol: 'none', lineStyle: { color: '#4a5160', type: 'dashed' }, data: [{ xAxis: 0 }] },
      z: 20,
    },
    {
      type: 'scatter',
      name: 'unpooled',
      symbol: 'emptyCircle',
      symbolSize: 6,
      itemStyle: { color: '#9aa1ad' },
      data: actions.map((r, i) => [num(r.unpooled_pp), at(i)]),
      z: 15,
    },
  ];
  const helped = actions.filter((r) => num(r.p_positive) >= 0.8).length;
  return {
    key: 'verdicts',
    title: 'Action impact: what each action did',
    caption:
      `Each completed action's effect on the own brand's visibility on its targeted prompts, in percentage points ` +
      `(dot) with its 95% interval (black) against its expected range (green band); the estimate learns from the ` +
      `team's other actions (partial pooling), the grey circle and line are the action's own estimate alone. ` +
      `Below them each category and the whole portfolio of the team's actions (every project's), each action's own ` +
      `estimate pooled (marts.action_impact_by_category). n = ${actions.length} measured action` +
      `${actions.length === 1 ? '' : 's'}; ${helped} likely helped (a chance of at least 8 in 10).`,
    height: 60 + rows.length * 30,
    option: {
      color: ['#b2dfb6', '#9aa1ad', '#1d2330', '#d9480f', '#9aa1ad'],
      aria: { enabled: true },
      textStyle: { fontFamily: 'sans-serif' },
      legend: { top: 0, data: ['effect', 'unpooled'] },
      grid: { left: 230, right: 20, top: 30, bottom: 30 },
      xAxis: { type: 'value', name: 'pp', nameLocation: 'end' },
      yAxis: { type: 'category', data: labels, axisLabel: { width: 220, overflow: 'truncate' } },
      series,
    } as ChartOption,
    table: {
      columns: [
        'action or group',
        'effect pp',
        '95% low',
        '95% high',
        'own estimate pp',
        'expected pp',
        'verdict',
        'likely helped',
        'within promise',
        'days to decide',
      ],
      rows: rows.map((r, i) => [
        String(r.title),
        num(r.effect_pp),
        num(r.ci_low),
        num(r.ci_high),
        isAction(i) ? num(r.unpooled_pp) : null,
        r.expected_impact_min === null ? null : `${num(r.expected_impact_min)}–${num(r.expected_impact_max)}`,
        (r.vs_expected as string | null) ?? null,
        inTen(num(r.p_positive)),
        r.p_within_expected === null ? null : inTen(num(r.p_within_expected)),
        isAction(i) ? maybe(r.days_to_decide) : null,
      ]),
    },
    notes: actions.map((r) => ({
      id: String(r.action_id),
      text: `${String(r.title)}: ${verdictSentence(r)} (effect ${num(r.effect_pp).toFixed(1)} pp, 95% ${num(r.ci_low).toFixed(1)} to ${num(r.ci_high).toFixed(1)}).`,
    })),
  };
}
