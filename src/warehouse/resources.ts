import { availableParallelism } from 'node:os';
import { VACUUM_OFF } from './vacuum.js';

/**
 * How much of the machine DuckDB may use. Its own default memory limit is 80 % of RAM, which lets a big build's
 * buffer pool crowd out everything else on a cron box; with a limit, DuckDB spills to `<db file>.tmp/` instead.
 */
export interface DuckDbResources {
  /** DuckDB `memory_limit`, e.g. `1GB`, `512MB`. */
  memoryLimit: string;
  /** DuckDB worker threads. */
  threads: number;
}

/** 1 GB keeps a build's peak RSS under 2 GB with the Node process around it; raise it with --memory-limit. */
export const DEFAULT_MEMORY_LIMIT = '1GB';

/** Every core up to 4: more threads mean more memory in flight for little gain on a small box. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** The options `Database.open` passes to DuckDB. */
export function duckdbOptions(resources: DuckDbResources): Record<string, string> {
  return { memory_limit: resources.memoryLimit, threads: String(resources.threads), ...VACUUM_OFF };
}
