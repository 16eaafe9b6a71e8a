/**
 * The exports, as functions that `vwh export`, `vwh report` and `vwh run` call: each opens the warehouse read-only
 * itself, throws VwhError on bad input (never exits the process) and returns what it wrote.
 */
export { type ArrowExportOptions, exportArrow } from './arrow-ipc.js';
export { type HtmlReportOptions, writeHtmlReport } from './html/report.js';
export { type RecoverySummary, recoverLake, type StepHook } from './lake-journal.js';
export { exportParquetLake, type ParquetLakeOptions } from './parquet-lake.js';
export { loadReports, type Report } from './reports/catalog.js';
export { type WriteReportOptions, writeReport } from './reports/run.js';
export { describeSummary, type ExportSummary } from './summary.js';
