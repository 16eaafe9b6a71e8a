/** The HTML report's page: one self-contained document, styles inline, charts as inline SVG, no external reference. */

import { PEOPLE_DECIMALS } from '../reports/precision.js';
import type { Chart } from './chart.js';
import { renderSvg } from './svg.js';

const WIDTH = 760;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cell(value: string | number | boolean | null): string {
  if (value === null) return '<td class="null">–</td>';
  if (typeof value === 'number')
    return `<td class="num">${value.toLocaleString('en-US', { maximumFractionDigits: PEOPLE_DECIMALS })}</td>`;
  return `<td>${escapeHtml(String(value))}</td>`;
}

export function figure(chart: Chart, id: string): string {
  const svg = renderSvg(chart.option, id, WIDTH, chart.height);
  const head = chart.table.columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  const body = chart.table.rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('\n');
  return `<figure class="chart" id="${id}" data-chart="${chart.key}">
<h3>${escapeHtml(chart.title)}</h3>
<div class="svg">${svg}</div>
<figcaption id="${id}-caption">${escapeHtml(chart.caption)}</figcaption>
${chart.notes?.length ? `<ul class="notes">${chart.notes.map((n) => `<li data-id="${escapeHtml(n.id)}">${escapeHtml(n.text)}</li>`).join('')}</ul>\n` : ''}<details><summary>Data table (${chart.table.rows.length} rows)</summary>
<table><caption>${escapeHtml(chart.title)}: the figures behind the chart</caption>
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody></table></details>
</figure>`;
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:20px 32px}header h1{margin:0 0 6px;font-size:24px}header p{margin:0;opacity:.85}
main{max-width:${WIDTH + 80}px;margin:0 auto;padding:16px}
section.project{background:#fff;border-radius:8px;padding:16px 24px;margin:16px 0;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h2{margin:8px 0 4px}h3{margin:18px 0 6px;font-size:17px}
figure{margin:0 0 24px}figcaption{font-size:13px;color:#4a5160;margin:4px 0}
.svg svg{max-width:100%;height:auto}
details{font-size:13px}summary{cursor:pointer;color:#2b59c3}
table{border-collapse:collapse;margin:6px 0;font-size:12px}caption{text-align:left;color:#4a5160;padding:2px 0}
th,td{border:1px solid #dde1e7;padding:2px 6px;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.null{color:#9aa1ad}ul.notes{font-size:14px;margin:6px 0;padding-left:20px}.empty{color:#4a5160;font-size:13px}
nav.projects{background:#fff;border-radius:8px;padding:8px 24px;margin:16px 0;box-shadow:0 1px 3px rgba(0,0,0,.08)}
nav.projects ol{columns:2;margin:8px 0}nav.projects a{color:#2b59c3}
`;

export function page(title: string, subtitle: string, sections: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1><p>${escapeHtml(subtitle)}</p></header>
<main>
${sections.join('\n')}
</main>
</body>
</html>
`;
}
