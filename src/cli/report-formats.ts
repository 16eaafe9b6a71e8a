import type { ReportFormat } from '../export/reports/formats.js';

/**
 * The formats `vwh report --format` takes: the REPORT_FORMATS of export/reports/formats.ts (a test holds them equal),
 * restated here because that module loads DuckDB, which `vwh report --help` should not.
 */
export const REPORT_FORMATS = ['csv', 'json', 'md'] as const satisfies readonly ReportFormat[];
