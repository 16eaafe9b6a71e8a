/**
 * What the sync hands the warehouse: rows per raw table, the partition of the table they replace, and the columns
 * every row gets from its run. The contract between `src/sync` and the loader (`loader.ts`).
 */

/** A row for one raw table: column → JS value (scalars, Dates, arrays and objects for list and JSON columns). */
export type RawRow = Record<string, unknown>;

/**
 * Which rows of the target a unit replaces: `team_id` and the `equals` columns (NULL-safe), and, for day-partitioned
 * tables, `between` a date column's inclusive range.
 */
export interface Partition {
  equals: Record<string, string | null | undefined>;
  between?: { column: string; from: string; to: string };
}

export interface TableLoad {
  /** `schema.table`, e.g. `raw.chats`. */
  table: string;
  /**
   * The rows this load replaces. Absent when the unit is new (the sync state knows none of its rows was landed):
   * its rows are appended without looking at the table at all.
   */
  partition?: Partition;
  rows: RawRow[];
}

/** Columns every raw row gets from the run rather than from the API. */
export interface RunColumns {
  team_id: string;
  _sync_run_id: string;
  _extracted_at: Date;
}
