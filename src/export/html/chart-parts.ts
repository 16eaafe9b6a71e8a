/**
 * What the HTML report's chart functions share: the palette, the figures as captions write them, error bars and
 * intervals as custom series (ECharts has neither), horizontal bars with their labels.
 */
import { PEOPLE_DECIMALS } from '../reports/precision.js';
import type { Row } from './data.js';
import type { ChartOption } from './svg.js';

/** Fixed palette (ECharts' default, spelled out so a library upgrade cannot change the bytes). */
export const COLORS = [
  '#5470c6',
  '#91cc75',
  '#fac858',
  '#ee6666',
  '#73c0de',
  '#3ba272',
  '#fc8452',
  '#9a60b4',
  '#ea7ccc',
];
export const OWN = '#d9480f';
/**
 * Space between legend items: ECharts' SSR measures text by an estimate (no canvas), a few pixels short of what
 * browsers draw for long brand names, so the default 10 px let a name run into the next item's symbol.
 */
export const LEGEND_GAP = 22;
export const base = { color: COLORS, aria: { enabled: true }, textStyle: { fontFamily: 'sans-serif' } } as const;

export const num = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0));
export const fmt = (n: number) => n.toLocaleString('en-US');
/** A percentage or points as a person reads them: 42.3 (reports/precision.ts). */
export const people = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: PEOPLE_DECIMALS });
export const sum = (rows: Row[], key: string) => rows.reduce((s, r) => s + num(r[key]), 0);
/** The smallest and largest value of a column: "28" or "1–25". */
export function span(rows: Row[], key: string): string {
  const ns = rows.map((r) => num(r[key]));
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  return lo === hi ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
}

/** The smallest and largest n of the rows: "57" or "57 to 108". */
export function nRange(rows: Row[], key: string): string {
  const ns = rows.map((r) => num(r[key]));
  const [lo, hi] = [Math.min(...ns), Math.max(...ns)];
  return lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`;
}

/** A figure in percentage points with 1 decimal, as a marketer reads it (the marts keep 2). */
export const pp1 = (v: unknown) => (v === null || v === undefined ? null : Math.round(num(v) * 10) / 10);

/** What ECharts hands a custom series' renderItem. */
export interface RenderApi {
  value: (i: number) => number;
  coord: (p: number[]) => number[];
  size: (p: number[]) => number[];
}

/** Vertical error bars (low..high at each category) as a custom series: ECharts has no error-bar series. */
export function errorBars(name: string, points: [number, number, number][], color: string, offset = 0): object {
  return {
    type: 'custom',
    name,
    silent: true,
    itemStyle: { color },
    data: points,
    encode: { x: 0, y: [1, 2] },
    z: 10,
    renderItem: (_params: unknown, api: RenderApi) => {
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

/** Horizontal intervals (y category, low, high) as a custom series, caps at both ends. */
export function intervalBars(name: string, points: [number, number, number][], color: string, width: number): object {
  return {
    type: 'custom',
    name,
    silent: true,
    itemStyle: { color },
    data: points,
    encode: { y: 0, x: [1, 2] },
    z: 10,
    renderItem: (_params: unknown, api: RenderApi) => {
      const low = api.coord([api.value(1), api.value(0)]);
      const high = api.coord([api.value(2), api.value(0)]);
      const half = Math.max(3, (api.size([0, 1])[1] ?? 0) * 0.15);
      const style = { stroke: color, lineWidth: width };
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
    series.push(
      intervalBars(
        '95% interval',
        [...intervals].reverse().map(([l, h], i) => [i, l, h]),
        '#333',
        1.5,
      ),
    );
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
