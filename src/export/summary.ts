/** What one export wrote: the figures `vwh export`/`vwh report` print and `vwh run` records per stage. */
export interface ExportSummary {
  kind: 'parquet' | 'arrow' | 'report' | 'html';
  /** Files written (for the lake: partition files rewritten, unchanged partitions are not counted). */
  files: number;
  rows: number;
  bytes: number;
  ms: number;
  /** Absolute paths of what was written (for the lake: the manifest, then each rewritten file). */
  outputs: string[];
}

/** One line for a terminal: `parquet: 12 files, 34,567 rows, 1.2 MB in 0.8 s`. */
export function describeSummary(summary: ExportSummary): string {
  return (
    `${summary.kind}: ${summary.files} file${summary.files === 1 ? '' : 's'}, ` +
    `${summary.rows.toLocaleString('en-US')} rows, ${formatBytes(summary.bytes)} in ${(summary.ms / 1000).toFixed(1)} s`
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}
