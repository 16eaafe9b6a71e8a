/**
 * The HTML report's charts: one function per chart, from the rows of data.ts to an ECharts option, a caption
 * that says what n the chart rests on, and the table shown beside it (the same figures, for screen readers and for
 * copying). Here the visibility charts and the action impact, and `projectCharts`, a project's charts in page order;
 * the opportunity charts are in opportunity-charts.ts, the action verdicts in forest.ts, what they share in
 * chart-parts.ts.
 */
import type { Chart } from './chart.js';
import { base, COLORS, errorBars, fmt, horizontalBars, LEGEND_GAP, num, OWN, pp1, span, sum } from './chart-parts.js';
import type { ProjectData } from './data.js';
import { forestChart } from './forest.js';
import { gapChart, promptChart, sourceChart } from './opportunity-charts.js';
import type { ChartOption } from './svg.js';

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
