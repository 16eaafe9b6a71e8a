/**
 * One chart as inline SVG, rendered in Node by Apache ECharts' server-side renderer (`renderToSVGString`: no DOM,
 * no canvas, no browser). Compared with Vega-Lite: its grammar is more concise, and `vega.View#toSVG()` also
 * renders headless, but it takes two runtimes (vega-lite to compile, vega to render) and measures text with
 * node-canvas when present and an estimate otherwise, so output can differ between machines; ECharts is one
 * package whose SSR mode is made for this, with an `aria` option that describes each chart, and bands and error
 * bars from ordinary series.
 */
import type * as Echarts from 'echarts';

export type ChartOption = Echarts.EChartsOption;

/** ECharts is loaded on first use (about half a second of CPU), not by every `vwh` command that imports exports. */
let echarts: typeof Echarts | undefined;

export async function loadRenderer(): Promise<void> {
  echarts ??= await import('echarts');
}

/**
 * Renders `option` to an SVG string that is the same bytes for the same input: ECharts numbers its instances and
 * CSS classes with process-wide counters (`zr3-cls-12`), so those tokens are renumbered per chart (`c<n>-<k>`),
 * and the XML namespace declarations (URLs that inline SVG in HTML does not need) are dropped.
 */
export function renderSvg(option: ChartOption, chartId: string, width: number, height: number): string {
  if (!echarts) throw new Error('renderSvg before loadRenderer()');
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, ...option });
    const svg = chart.renderToSVGString();
    const ids = new Map<string, string>();
    return svg
      .replace(/\bzr\d+-[a-z-]*\d+\b/g, (token) => {
        let id = ids.get(token);
        if (!id) {
          id = `${chartId}-${ids.size}`;
          ids.set(token, id);
        }
        return id;
      })
      .replace(/ xmlns(:xlink)?="[^"]*"/g, '')
      .replace('<svg ', `<svg role="img" aria-labelledby="${chartId}-caption" `);
  } finally {
    chart.dispose();
  }
}
