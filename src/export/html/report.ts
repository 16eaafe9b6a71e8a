/**
 * `vwh report html`: one self-contained HTML file with a section per project and eight charts each. Same input,
 * same bytes: nothing depends on the clock or the machine (the date line is the data's first and newest day).
 */
import { ensureWritableFile, type GuardedInput } from '../../core/folders.js';
import type { Logger } from '../../core/log.js';
import { silentLogger } from '../../core/log.js';
import { writeFileAtomic } from '../paths.js';
import { bindParameters } from '../reports/parameters.js';
import { withWarehouse } from '../source.js';
import type { ExportSummary } from '../summary.js';
import { changeCharts } from './change-charts.js';
import { projectCharts } from './charts.js';
import { loadReportData } from './data.js';
import { escapeHtml, figure, page } from './page.js';
import { loadRenderer } from './svg.js';

export interface HtmlReportOptions {
  db: string;
  out: string;
  projectId?: string;
  from?: string;
  to?: string;
  log?: Logger;
  /** What the output may not replace or write into (the warehouse, its WAL, the published copy, the lake, the journal). */
  inputs?: readonly GuardedInput[];
}

export async function writeHtmlReport(options: HtmlReportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const log = options.log ?? silentLogger;
  const out = ensureWritableFile(options.out, '--out', options.inputs);
  return withWarehouse(options.db, async (db) => {
    // Conditional spreads: loadReportData reads the parameters given by Object.entries.
    const params = {
      ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
      ...(options.from !== undefined ? { from: options.from } : {}),
      ...(options.to !== undefined ? { to: options.to } : {}),
    };
    // the same checks as the named reports: days that exist, a range in order, a known project (by id or name)
    const bound = await bindParameters(
      db,
      {
        name: 'html',
        file: '',
        sql: '',
        title: '',
        description: '',
        columns: {},
        parameters: {
          project: { type: 'VARCHAR', default: null, description: '' },
          from: { type: 'DATE', default: null, description: '' },
          to: { type: 'DATE', default: null, description: '' },
        },
      },
      params,
    );
    const project = bound.values.project;
    const data = await loadReportData(db, project ? { ...params, projectId: String(project) } : params);
    await loadRenderer();
    let charts = 0;
    let rows = 0;
    const sections = data.projects.map((project, p) => {
      const made = projectCharts(project);
      const changes = changeCharts(project);
      const list = [...changes.charts, ...made.charts];
      const empty = [...changes.empty, ...made.empty];
      charts += list.length;
      rows += list.reduce((s, c) => s + c.table.rows.length, 0);
      log.info('html report project', { project: project.projectId, charts: list.length });
      return `<section class="project" id="p${p}">
<h2>${escapeHtml(project.name)}${project.brandName && project.brandName !== project.name ? ` <small>(${escapeHtml(project.brandName)})</small>` : ''}</h2>
${list.map((c, i) => figure(c, `p${p}c${i}`)).join('\n')}
${empty.length > 0 ? `<p class="empty">No data in this range for: ${escapeHtml(empty.join(', '))}.</p>` : ''}
</section>`;
    });
    // with several projects the page is long: a list of them first, each a link to its section
    if (data.projects.length > 1) {
      const links = data.projects.map((project, p) => `<li><a href="#p${p}">${escapeHtml(project.name)}</a></li>`);
      sections.unshift(`<nav class="projects" aria-label="Projects"><ol>${links.join('')}</ol></nav>`);
    }
    const range = `${options.from ?? data.dataFrom ?? 'first day'} to ${options.to ?? data.dataThrough ?? 'last day'}`;
    const html = page(
      'Brand visibility in AI answers',
      `${data.projects.length} project${data.projects.length === 1 ? '' : 's'}, ${range}. ` +
        `Data through ${data.dataThrough ?? '–'}${data.syncRun ? ` (sync run ${data.syncRun})` : ''}.`,
      sections,
    );
    const bytes = writeFileAtomic(out, html);
    const summary: ExportSummary = { kind: 'html', files: 1, rows, bytes, ms: Date.now() - started, outputs: [out] };
    log.info('html report written', { out, projects: data.projects.length, charts, bytes, ms: summary.ms });
    return summary;
  });
}
