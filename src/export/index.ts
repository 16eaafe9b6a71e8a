/**
 * The exports, as functions that `vwh export`, `vwh report` and `vwh run` call: each opens the warehouse read-only
 * itself, throws VwhError on bad input (never exits the process) and returns what it wrote.
 */
export { exportParquetLake, type ParquetLakeOptions } from './parquet-lake.js';
export { describeSummary, type ExportSummary } from './summary.js';
