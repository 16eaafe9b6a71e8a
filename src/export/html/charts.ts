/**
 * The HTML report's charts: one function per chart, from the rows of data.ts to an ECharts option, a caption
 * that says what n the chart rests on, and the table shown beside it (the same figures, for screen readers and for
 * copying).
 */

import type { Plain } from '../reports/formats.js';
import type { Chart } from './chart.js';
import type { ProjectData, Row } from './data.js';
import { forestChart } from './forest.js';
import type { ChartOption } from './svg.js';

export type { Chart } from './chart.js';

/** Fixed palette (ECharts' default, spelled out so a library upgrade cannot change the bytes). */
const COLORS = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4', '#ea7ccc'];
const OWN = '#d9480f';
/**
 * Space between legend items: ECharts' SSR measures text by an estimate (no canvas), a few pixels short of what
 * browsers draw for long brand names, so the default 10 px let a name run into the next item's symbol.
 */
const LEGEND_GAP = 22;
const base = { color: COLORS, aria: { enabled: true }, textStyle: { fontFamily: 'sans-serif' } } as const;

export const num = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0));
export const fmt = (n: number) => n.toLocaleString('en-US');
const sum = (rows: Row[], key: string) => rows.reduce((s, r) => s + num(r[key]), 0);
/** The smallest and largest value of a column: "28" or "1–25". */
function span(rows: Row[], key: string): string {
  const ns = rows.map((r) => num(r[key]));
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  return lo === hi ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
}

/** The smallest and largest n of the rows: "57" or "57 to 108". */
function nRange(rows: Row[], key: string): string {
  const ns = rows.map((r) => num(r[key]));
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  return lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`;
}

/** Vertical error bars (low..high at each category) as a custom series: ECharts has no error-bar series. */
function errorBars(name: string, points: [number, number, number][], color: string, offset = 0): object {
  return {
    type: 'custom',
    name,
    silent: true,
    itemStyle: { color },
    data: points,
    encode: { x: 0, y: [1, 2] },
    z: 10,
    renderItem: (
      params: { coordSys: unknown },
      api: { value: (i: number) => number; coord: (p: number[]) => number[]; size: (p: number[]) => number[] },
    ) => {
      void params;
      const low = api.coord([api.value(0), api.value(1)]);
      const high = api.coord([api.value(0), api.value(2)]);
      const band = api.size([1, 0])[0] ?? 0;
      const x = (low[0] ?? 0) + offset * band;
      const half = Math.max(3, band * 0.08);
      const style = { stroke: color, lineWidth: 1.5 };
      return {
        type: 'group',
        children: [
          { type: 'line', shape: { x1: x, y1: low[1], x2: x, y2: high[1] }, style },
          { type: 'line', shape: { x1: x - half, y1: low[1], x2: x + half, y2: low[1] }, style },
          { type: 'line', shape: { x1: x - half, y1: high[1], x2: x + half, y2: high[1] }, style },
        ],
      };
    },
  };
}

export function trendChart(p: ProjectData): Chart {
  const weeks = [...new Set(p.weekly.map((r) => String(r.week_start)))].sort();
  const brands = [...new Set(p.weekly.map((r) => String(r.brand_name)))];
  const own = p.weekly.filter((r) => r.is_own_brand);
  const ownName = String(own[0]?.brand_name ?? p.brandName);
  const byWeek = (brand: string) =>
    weeks.map((w) => p.weekly.find((r) => r.brand_name === brand && r.week_start === w));
  const ownRows = byWeek(ownName);
  const series: object[] = [
    // the band: the lower bound stacked with the interval's width, only the width filled
    {
      type: 'line',
      name: '95% interval',
      stack: 'band',
      symbol: 'none',
      lineStyle: { opacity: 0 },
      data: ownRows.map((r) => (r ? num(r.visibility_ci_low_pct) : null)),
    },
    {
      type: 'line',
      name: `${ownName} 95% interval`,
      stack: 'band',
      symbol: 'none',
      lineStyle: { opacity: 0 },
      areaStyle: { color: OWN, opacity: 0.18 },
      data: ownRows.map((r) => (r ? num(r.visibility_ci_high_pct) - num(r.visibility_ci_low_pct) : null)),
    },
    ...brands.map((brand) => ({
      type: 'line',
      name: brand,
      symbolSize: 4,
      lineStyle: { width: brand === ownName ? 3 : 1.5 },
      // Conditional spreads: ECharts merges option objects key by key, and the SVG must not change by a byte.
      ...(brand === ownName ? { itemStyle: { color: OWN } } : {}),
      data: byWeek(brand).map((r) => (r ? num(r.visibility_pct) : null)),
    })),
  ];
  return {
    key: 'trend',
    title: 'Visibility by week: own brand against each competitor',
    caption:
      `Share of AI answers naming each brand, per week, all providers pooled; the shaded band is ${ownName}'s ` +
      `95% Wilson interval. n = ${fmt(sum(own, 'responses'))} answers over ${weeks.length} weeks ` +
      `(${fmt(Math.min(...own.map((r) => num(r.responses))))} to ${fmt(Math.max(...own.map((r) => num(r.responses))))} a week).`,
    height: 360,
    option: {
      ...base,
      legend: { top: 0, data: brands, type: 'plain', itemGap: LEGEND_GAP },
      grid: { left: 50, right: 20, top: 80, bottom: 40 },
      xAxis: { type: 'category', data: weeks, boundaryGap: false },
      yAxis: { type: 'value', name: '% of answers', max: 100 },
      series,
    } as ChartOption,
    table: {
      columns: ['week', 'brand', 'answers (n)', 'naming it', 'visibility %', '95% low', '95% high'],
      rows: p.weekly.map((r) => [
        r.week_start as string,
        r.brand_name as string,
        num(r.responses),
        num(r.mentions),
        num(r.visibility_pct),
        num(r.visibility_ci_low_pct),
        num(r.visibility_ci_high_pct),
      ]),
    },
  };
}

export function horizontalBars(
  labels: string[],
  values: number[],
  axis: string,
  intervals?: [number, number][],
): ChartOption {
  const reversed = [...labels].reverse();
  const series: object[] = [{ type: 'bar', name: axis, data: [...values].reverse(), itemStyle: { color: COLORS[0] } }];
  if (intervals) {
    series.push({
      ...errorBars(
        '95% interval',
        [...intervals].reverse().map(([l, h], i) => [i, l, h]),
        '#333',
      ),
      encode: { y: 0, x: [1, 2] },
      renderItem: (
        _params: unknown,
        api: { value: (i: number) => number; coord: (p: number[]) => number[]; size: (p: number[]) => number[] },
      ) => {
        const low = api.coord([api.value(1), api.value(0)]);
        const high = api.coord([api.value(2), api.value(0)]);
        const half = Math.max(3, (api.size([0, 1])[1] ?? 0) * 0.15);
        const style = { stroke: '#333', lineWidth: 1.5 };
        return {
          type: 'group',
          children: [
            { type: 'line', shape: { x1: low[0], y1: low[1], x2: high[0], y2: high[1] }, style },
            {
              type: 'line',
              shape: { x1: low[0], y1: (low[1] ?? 0) - half, x2: low[0], y2: (low[1] ?? 0) + half },
              style,
            },
            {
              type: 'line',
              shape: { x1: high[0], y1: (high[1] ?? 0) - half, x2: high[0], y2: (high[1] ?? 0) + half },
              style,
            },
          ],
        };
      },
    });
  }
  return {
    ...base,
    grid: { left: 230, right: 30, top: 20, bottom: 40 },
    xAxis: { type: 'value', name: axis, nameLocation: 'middle', nameGap: 25 },
    yAxis: {
      type: 'category',
      data: uniqueLabels(reversed),
      axisLabel: { width: 220, overflow: 'truncate' },
    },
    series,
  } as ChartOption;
}

/**
 * Bar labels cut at 34 characters, each one distinct: two long texts that share their first 33 characters (two
 * prompts) would otherwise read as one label on two bars, so a repeat ends in its rank instead ("…#2").
 */
export function uniqueLabels(labels: string[]): string[] {
  const cut = labels.map((l) => (l.length > 34 ? `${l.slice(0, 33)}…` : l));
  const seen = new Map<string, number>();
  for (const l of cut) seen.set(l, (seen.get(l) ?? 0) + 1);
  const taken = new Map<string, number>();
  return cut.map((l, i) => {
    if ((seen.get(l) ?? 0) < 2) return l;
    const k = (taken.get(l) ?? 0) + 1;
    taken.set(l, k);
    const tag = ` #${labels.length - i}`;
    return `${l.slice(0, 34 - tag.length - 1)}…${tag}`;
  });
}

/** A figure in percentage points with 1 decimal, as a marketer reads it (the marts keep 2). */
const pp1 = (v: unknown) => (v === null || v === undefined ? null : Math.round(num(v) * 10) / 10);

export function shareOfVoiceChart(p: ProjectData): Chart {
  const rows = p.shareOfVoice;
  const total = num(rows[0]?.all_mentions_total);
  // A range holding days built before the mart had intervals has none (docs/analytics.md): bars without whiskers.
  const intervals = rows.every((r) => r.sov_all_ci_low_pct !== null && r.sov_all_ci_low_pct !== undefined);
  return {
    key: 'sov',
    title: 'Share of voice',
    caption:
      `Each brand's share of the brand mentions in AI answers, all providers pooled, ${rows[0]?.date_from ?? '–'} to ` +
      `${rows[0]?.date_to ?? '–'}` +
      (rows[0]?.tracked_set_changed === true ? ' (the tracked competitors changed inside these days)' : '') +
      `, top ${rows.length}` +
      (intervals
        ? ', with 95% intervals (the answer as the unit: one answer names several brands). '
        : ' (no intervals: the range holds days built before the warehouse kept them). ') +
      `n = ${fmt(total)} brand mentions in ${fmt(num(rows[0]?.responses))} answers.`,
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => String(r.brand_name)),
      rows.map((r) => num(r.sov_all_pct)),
      '% of brand mentions',
      intervals ? rows.map((r) => [num(r.sov_all_ci_low_pct), num(r.sov_all_ci_high_pct)]) : undefined,
    ),
    table: {
      columns: ['rank', 'brand', 'mentions', 'all mentions (n)', 'share %', '95% low', '95% high', 'tracked share %'],
      rows: rows.map((r) => [
        num(r.rank),
        String(r.brand_name),
        num(r.brand_responses),
        total,
        num(r.sov_all_pct),
        r.sov_all_ci_low_pct as number | null,
        r.sov_all_ci_high_pct as number | null,
        r.sov_tracked_pct as number | null,
      ]),
    },
  };
}

export function providerChart(p: ProjectData): Chart {
  const providers = [...new Set(p.providers.map((r) => String(r.provider)))];
  const brands = [...new Set(p.providers.map((r) => String(r.brand_name)))];
  const cell = (provider: string, brand: string) =>
    p.providers.find((r) => r.provider === provider && r.brand_name === brand);
  const n = brands.length;
  const series: object[] = brands.map((brand, i) => ({
    type: 'bar',
    name: brand,
    ...(i === 0 ? { itemStyle: { color: OWN } } : {}),
    data: providers.map((pr) => num(cell(pr, brand)?.visibility_pct)),
  }));
  brands.forEach((brand, i) => {
    const offset = (i - (n - 1) / 2) * (0.7 / n);
    series.push(
      errorBars(
        `${brand} 95% interval`,
        providers.map((pr, x) => [x, num(cell(pr, brand)?.ci_low), num(cell(pr, brand)?.ci_high)]),
        '#333',
        offset,
      ),
    );
  });
  const all = p.providers.filter((r) => r.provider === 'all' && r.is_own_brand);
  const competitors = new Set(p.providers.filter((r) => !r.is_own_brand).map((r) => String(r.brand_name))).size;
  return {
    key: 'providers',
    title: 'Visibility per AI provider',
    caption:
      `Share of answers naming the own brand and the ${competitors === 1 ? 'competitor' : `${competitors} competitors`} ` +
      'named in the largest share of answers (each over the days it was tracked), per provider over the range, ' +
      `with 95% Wilson intervals. n = ${fmt(num(all[0]?.responses))} answers (all providers), ` +
      providers
        .filter((pr) => pr !== 'all')
        .map((pr) => `${pr} ${fmt(num(cell(pr, brands[0] ?? '')?.responses))}`)
        .join(', ') +
      '.',
    height: 340,
    option: {
      ...base,
      legend: { top: 0, data: brands, itemGap: LEGEND_GAP },
      grid: { left: 50, right: 20, top: 40, bottom: 30 },
      xAxis: { type: 'category', data: providers },
      yAxis: { type: 'value', name: '% of answers', max: 100 },
      series,
    } as ChartOption,
    table: {
      columns: ['provider', 'brand', 'answers (n)', 'naming it', 'visibility %', '95% low', '95% high'],
      rows: p.providers.map((r) => [
        String(r.provider),
        String(r.brand_name),
        num(r.responses),
        num(r.mentions),
        num(r.visibility_pct),
        num(r.ci_low),
        num(r.ci_high),
      ]),
    },
  };
}

/**
 * The source window is the API's latest analysis window, which can end after the warehouse's newest day (the API
 * counts today's answers, the nightly build stops at yesterday): the caption says where the counted answers end.
 */
function sourceWindowNote(p: ProjectData, windowTo: Plain | undefined): string {
  if (!p.answersThrough || typeof windowTo !== 'string' || windowTo <= p.answersThrough) return '';
  return ` (the API's analysis window; the warehouse holds its answers through ${p.answersThrough})`;
}

export function sourceChart(p: ProjectData): Chart {
  const rows = p.sourceOpportunities;
  const gaps = rows.filter((r) => r.is_opportunity === true).length;
  const addressed = rows.filter((r) => r.addressed_by_action !== null && r.addressed_by_action !== undefined).length;
  return {
    key: 'sources',
    title: 'Top source opportunities',
    caption:
      `Domains AI answers cite, top ${rows.length}: the ${gaps} whose citing answers leave the brand out for a ` +
      'competitor more often than the project’s answers do (beyond sampling) first, then the others; bars are the ' +
      `opportunity score (0–100: reach × gap × category weight)` +
      (addressed ? `; ${addressed} marked ✓ were targeted by a completed action` : '') +
      `; window ${rows[0]?.window_from ?? '–'} to ${rows[0]?.window_to ?? '–'}${sourceWindowNote(p, rows[0]?.window_to)}, ` +
      `n = ${fmt(num(rows[0]?.responses))} answers.`,
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => `${r.addressed_by_action ? '✓ ' : ''}${String(r.domain)}`),
      rows.map((r) => num(r.opportunity_score)),
      'opportunity score (0–100)',
    ),
    table: {
      columns: [
        'rank',
        'domain',
        'category',
        'score (0–100)',
        'citing answers',
        'answers (n)',
        'gap share',
        'gap share, project',
        'opportunity',
        'completed action',
      ],
      rows: rows.map((r) => [
        num(r.score_rank),
        String(r.domain),
        String(r.category_name),
        num(r.opportunity_score),
        num(r.citing_responses),
        num(r.responses),
        num(r.gap_share),
        num(r.project_gap_share),
        r.is_opportunity === true ? 'yes' : 'no',
        (r.addressed_by_action as string | null) ?? null,
      ]),
    },
  };
}

export function promptChart(p: ProjectData): Chart {
  const rows = p.promptOpportunities;
  const imputed = rows.filter((r) => r.demand_imputed === true).length;
  return {
    key: 'prompts',
    title: 'Top prompt opportunities',
    caption:
      `Prompts whose answers name a tracked competitor more often than ${p.brandName || 'the brand'} beyond ` +
      `sampling noise, in searches per month that lead holds (demand × intent weight × the lower 95% bound of the ` +
      `competitor's lead), all providers, top ${rows.length} of the prompts active on ` +
      `${rows[0]?.window_to ?? '–'} with at least 30 answers; 28 days to ${rows[0]?.window_to ?? '–'}; ` +
      `n = ${fmt(sum(rows, 'responses'))} answers to these prompts` +
      (imputed ? `; ${imputed} marked * have no demand of their own (the project’s median is used).` : '.'),
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => `${r.demand_imputed === true ? '* ' : ''}${String(r.prompt_content)}`),
      rows.map((r) => num(r.opportunity_searches_per_month)),
      'searches per month',
    ),
    table: {
      columns: [
        'rank',
        'prompt',
        'searches per month',
        'demand imputed',
        'answers (n)',
        'naming brand',
        'best competitor',
        'naming it',
        'its lead (pp)',
        'lead 95% interval',
      ],
      rows: rows.map((r) => [
        num(r.score_rank),
        String(r.prompt_content),
        num(r.opportunity_searches_per_month),
        r.demand_imputed === true ? 'yes (median)' : 'no',
        num(r.responses),
        num(r.brand_mentions),
        r.best_competitor as string | null,
        num(r.best_competitor_mentions),
        num(r.gap_pp),
        `${num(r.gap_ci_low_pp)} to ${num(r.gap_ci_high_pp)}`,
      ]),
    },
  };
}

export function gapChart(p: ProjectData): Chart {
  const rows = p.gaps;
  return {
    key: 'gaps',
    title: 'Competitor gaps',
    caption:
      `Share of answers naming the competitor and not the brand, over the prompts where it happens, all providers, ` +
      `with 95% Wilson intervals. n = ${nRange(rows, 'responses')} answers per competitor (those to the prompts where ` +
      `it has a gap; one answer counts for each competitor it names), ${fmt(sum(rows, 'prompts'))} prompt-competitor pairs.`,
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => String(r.competitor_name)),
      rows.map((r) => num(r.gap_pct)),
      '% of answers: competitor named, brand not',
      rows.map((r) => [num(r.ci_low), num(r.ci_high)]),
    ),
    table: {
      columns: ['competitor', 'gap answers', 'answers (n)', 'prompts', 'gap %', '95% low', '95% high'],
      rows: rows.map((r) => [
        String(r.competitor_name),
        num(r.gap_responses),
        num(r.responses),
        num(r.prompts),
        num(r.gap_pct),
        num(r.ci_low),
        num(r.ci_high),
      ]),
    },
  };
}

export function actionChart(p: ProjectData): Chart {
  const rows = p.actions;
  const labels = rows.map((r) => `${String(r.completed_on)} ${String(r.title)}`.slice(0, 40));
  const series: object[] = [
    { type: 'bar', name: 'before', itemStyle: { color: COLORS[4] }, data: rows.map((r) => num(r.before_pct)) },
    {
      type: 'bar',
      name: 'before + control drift',
      itemStyle: { color: '#c5cad3' },
      data: rows.map((r) => num(r.without_pct)),
    },
    { type: 'bar', name: 'after', itemStyle: { color: OWN }, data: rows.map((r) => num(r.after_pct)) },
    errorBars(
      'before 95% interval',
      rows.map((r, x) => [x, num(r.before_ci_low), num(r.before_ci_high)]),
      '#333',
      -0.235,
    ),
    errorBars(
      'after 95% interval',
      rows.map((r, x) => [x, num(r.after_ci_low), num(r.after_ci_high)]),
      '#333',
      0.235,
    ),
  ];
  return {
    key: 'actions',
    title: 'Action impact: visibility before and after',
    caption:
      `Own-brand visibility on each completed action's targeted prompts, the ${span(rows, 'before_days')} days ` +
      `before completion against the ${span(rows, 'after_days')} days after a ${span(rows, 'ramp_days')}-day ramp ` +
      '(an after window ends on the last complete day, so a recent action has a short one), ' +
      `with 95% Wilson intervals; ${rows.length} measured action${rows.length === 1 ? '' : 's'}, ` +
      `n = ${fmt(sum(rows, 'before_responses'))} answers before and ${fmt(sum(rows, 'after_responses'))} after. ` +
      'The grey bar is the before level moved by the control’s drift (what the prompts did without the action): the ' +
      'raw change counts that drift; the effect (table, and the verdicts above) takes it out.',
    height: 360,
    option: {
      ...base,
      legend: { top: 0, itemGap: LEGEND_GAP, data: ['before', 'before + control drift', 'after'] },
      grid: { left: 50, right: 20, top: 40, bottom: 90 },
      xAxis: { type: 'category', data: labels, axisLabel: { rotate: 20, width: 160, overflow: 'truncate' } },
      yAxis: { type: 'value', name: '% of answers', max: 100 },
      series,
    } as ChartOption,
    table: {
      columns: [
        'completed',
        'action',
        'before n',
        'before %',
        'after n',
        'after %',
        'effect pp',
        'effect 95% low',
        'effect 95% high',
        'vs expected',
        'control drift pp',
      ],
      rows: rows.map((r) => [
        String(r.completed_on),
        String(r.title),
        num(r.before_responses),
        num(r.before_pct),
        num(r.after_responses),
        num(r.after_pct),
        pp1(r.effect_pp),
        pp1(r.effect_ci_low_pp),
        pp1(r.effect_ci_high_pp),
        r.vs_expected as string | null,
        pp1(r.control_delta_pp),
      ]),
    },
  };
}

/** The charts of one project, in page order; a chart without data is left out (its section says so). */
export function projectCharts(p: ProjectData): { charts: Chart[]; empty: string[] } {
  const all: [string, boolean, () => Chart][] = [
    ['Visibility by week', p.weekly.length > 0, () => trendChart(p)],
    ['Share of voice', p.shareOfVoice.length > 0, () => shareOfVoiceChart(p)],
    ['Visibility per AI provider', p.providers.length > 0, () => providerChart(p)],
    ['Top source opportunities', p.sourceOpportunities.length > 0, () => sourceChart(p)],
    ['Top prompt opportunities', p.promptOpportunities.length > 0, () => promptChart(p)],
    ['Competitor gaps', p.gaps.length > 0, () => gapChart(p)],
    ['Action verdicts', p.verdicts.length > 0, () => forestChart(p)],
    ['Action impact', p.actions.length > 0, () => actionChart(p)],
  ];
  return {
    charts: all.filter(([, has]) => has).map(([, , make]) => make()),
    empty: all.filter(([, has]) => !has).map(([name]) => name),
  };
}
