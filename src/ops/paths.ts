/**
 * Where a run's files are: the warehouse and its published copy. A module of its own, importing nothing heavy, so that
 * `vwh status`, `vwh events listen` and `vwh schedule` find their files without loading the pipeline.
 */
import { basename, dirname, join } from 'node:path';
import type { SyncConfig } from '../core/config.js';
import { DEFAULT_DB_PATH } from '../core/defaults.js';

export function dbPathOf(flags: { db?: string }, config: SyncConfig): string {
  return flags.db ?? config.db ?? DEFAULT_DB_PATH;
}

/** `published/<name>` beside the warehouse: data/warehouse.duckdb → data/published/warehouse.duckdb. */
export function defaultPublishedPath(dbPath: string): string {
  return join(dirname(dbPath), 'published', basename(dbPath));
}

export function publishPathOf(dbPath: string, config: SyncConfig): string | undefined {
  if (config.publish?.enabled === false) return undefined;
  return config.publish?.path ?? defaultPublishedPath(dbPath);
}
