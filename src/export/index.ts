/**
 * The exports, as functions that `vwh export`, `vwh report` and `vwh run` call: each opens the warehouse read-only
 * itself, throws VwhError on bad input (never exits the process) and returns what it wrote.
 */
import type { ArrowExportOptions } from './arrow-ipc.js';

export type { ArrowExportOptions };

/**
 * Arrow IPC files (arrow-ipc.ts). apache-arrow (about 150 modules) is loaded when an Arrow export runs, not by every
 * command that imports the exports: a `vwh run` without Arrow output never needs it.
 */
export async function exportArrow(
  options: ArrowExportOptions,
): ReturnType<typeof import('./arrow-ipc.js').exportArrow> {
  return (await import('./arrow-ipc.js')).exportArrow(options);
}
export { type HtmlReportOptions, writeHtmlReport } from './html/report.js';
export { type RecoverySummary, recoverLake, type StepHook } from './lake/journal.js';
export { exportParquetLake, type ParquetLakeOptions } from './lake/write.js';
export { loadReports, type Report } from './reports/catalog.js';
export { type WriteReportOptions, writeReport } from './reports/run.js';
export { describeSummary, type ExportSummary } from './summary.js';
