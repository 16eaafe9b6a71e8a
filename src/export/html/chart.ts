/** One chart of the HTML report, as the chart functions (charts.ts, opportunity-charts.ts, forest.ts, change-charts.ts) return it and page.ts lays it out. */
import type { ChartOption } from './svg.js';

export interface Chart {
  key: string;
  title: string;
  caption: string;
  option: ChartOption;
  height: number;
  table: { columns: string[]; rows: (string | number | boolean | null)[][] };
  /** Sentences shown under the chart, each for one row (`data-id`): a verdict in words. */
  notes?: { id: string; text: string }[];
}
