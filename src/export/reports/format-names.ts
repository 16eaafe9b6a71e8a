/** The formats a report is written in: a module of its own, importing nothing, so `vwh report --help` can list them. */
export type ReportFormat = 'csv' | 'json' | 'md';
export const REPORT_FORMATS: readonly ReportFormat[] = ['csv', 'json', 'md'];
