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
  /** The lake: the files of the partitions whose rows did not change, kept as they were (not rewritten). */
  unchanged?: { files: number; rows: number };
  /** What the reader should know about the rows (a --from past the data's last day). */
  note?: string;
}

/**
 * One line for a terminal: `parquet: 12 files, 34,567 rows, 1.2 MB in 0.8 s`; the lake adds what it kept
 * (`; 78 files, 5,627 rows unchanged, kept`), so that a re-export writing nothing does not read as an empty lake.
 */
export function describeSummary(summary: ExportSummary): string {
  const kept = summary.unchanged;
  return (
    `${summary.kind}: ${files(summary.files)}, ` +
    `${summary.rows.toLocaleString('en-US')} rows, ${formatBytes(summary.bytes)} in ${(summary.ms / 1000).toFixed(1)} s` +
    (kept && kept.files > 0
      ? `; ${files(kept.files)}, ${kept.rows.toLocaleString('en-US')} rows unchanged, kept`
      : '') +
    (summary.note ? `; ${summary.note}` : '')
  );
}

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}
