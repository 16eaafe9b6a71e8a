/**
 * Where the warehouse lives and what DuckDB may take of the machine, by default. No DuckDB import: the CLI's help
 * texts show these values without loading the binding.
 */
export const DEFAULT_DB_PATH = 'data/warehouse.duckdb';

/**
 * What DuckDB may take of the machine. Its own default memory limit is 80 % of RAM, which lets the buffer pool of a
 * long backfill grow to gigabytes on a box that also runs other jobs; beyond the limit DuckDB spills to a temp
 * directory beside the file instead of growing.
 */
export interface DbResources {
  /** DuckDB `memory_limit`, e.g. `512MB`, `2GB`. */
  memoryLimit: string;
  /** DuckDB `threads`. */
  threads: number;
}

/**
 * A cron box: a quarter of a gigabyte and one thread; raise them with --memory-limit / --threads (or the config).
 * One thread: the sync's statements are small, and with a second one the connection's thread spun waiting for
 * DuckDB's worker, which cost a backfill CPU rather than saving it.
 * The sync's process is bounded as a whole (768 MB at an agency's scale) and its JS heap needs about as much again
 * as DuckDB: at 256MB DuckDB holds far less than at 512MB with the backfill as close to its floor (landing appends;
 * a batch is 10 000 rows). The measurements: docs/lab/2026-11-code-constants.md#the-sync.
 */
export const DEFAULT_RESOURCES: DbResources = { memoryLimit: '256MB', threads: 1 };

/**
 * The default memory limit for a warehouse file of `bytes`: DEFAULT_RESOURCES' 256MB, or a sixteenth of the file when
 * that is more (at most 2GB). DuckDB keeps resident part of what it scans of a big table (a night's DELETEs of the
 * re-landed days scan raw.chats and its mentions and references), and that part grows with the tables: on the 10 ×
 * bench world (an 8 GB warehouse) a night's first transaction ran out of memory at 256MB and lands at what this gives
 * it (docs/lab/2026-11-code-constants.md#the-sync). A `--memory-limit` or the config's `memoryLimit` overrides it.
 */
export function memoryLimitFor(bytes: number): string {
  const sixteenth = Math.ceil(bytes / 16 / 1_000_000);
  return sixteenth > 256 ? `${Math.min(2000, sixteenth)}MB` : DEFAULT_RESOURCES.memoryLimit;
}

/** Seconds `vwh query` lets a query run before it interrupts it (`--timeout`; 0: no limit). */
export const DEFAULT_QUERY_TIMEOUT_S = 300;
