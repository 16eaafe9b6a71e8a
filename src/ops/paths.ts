/**
 * Where a run's files are: the warehouse and its published copy, as absolute paths (what every message names), and
 * the warehouses near a path that does not exist (a mistyped --db). A module of its own, importing nothing heavy, so
 * that `vwh status`, `vwh events listen` and `vwh schedule` find their files without loading the pipeline.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { SyncConfig } from '../core/config.js';
import { DEFAULT_DB_PATH } from '../core/defaults.js';

/** The warehouse of a command: --db, else "db" in the config, else data/warehouse.duckdb; absolute. */
export function dbPathOf(flags: { db?: string }, config: SyncConfig): string {
  return absolute(flags.db ?? config.db ?? DEFAULT_DB_PATH);
}

/** A path made absolute against the working directory (`:memory:` as it is). */
export function absolute(path: string): string {
  return path.startsWith(':memory:') ? path : resolve(path);
}

/** `published/<name>` beside the warehouse: data/warehouse.duckdb → data/published/warehouse.duckdb. */
export function defaultPublishedPath(dbPath: string): string {
  return join(dirname(dbPath), 'published', basename(dbPath));
}

export function publishPathOf(dbPath: string, config: SyncConfig): string | undefined {
  if (config.publish?.enabled === false) return undefined;
  return absolute(config.publish?.path ?? defaultPublishedPath(dbPath));
}

/**
 * Up to `limit` .duckdb files near `path` (which does not exist), the likeliest meant first: in its folder (or the
 * nearest folder of it that exists), that folder's `published/`, and ./data. Absolute paths.
 */
export function nearbyWarehouses(path: string, limit = 5): string[] {
  const target = resolve(path);
  let dir = dirname(target);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const found = new Set<string>();
  for (const folder of [dir, join(dir, 'published'), resolve('data'), resolve('data', 'published')]) {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = join(folder, entry);
      if (entry.endsWith('.duckdb') && file !== target && statSync(file, { throwIfNoEntry: false })?.isFile()) {
        found.add(file);
      }
    }
  }
  return [...found].sort((a, b) => distance(a, target) - distance(b, target) || a.localeCompare(b)).slice(0, limit);
}

/** `; warehouses nearby: a, b` or nothing: the tail of a message about a path that does not exist. */
export function nearbyNote(path: string): string {
  const near = nearbyWarehouses(path);
  return near.length ? ` Warehouses nearby: ${near.join(', ')}.` : '';
}

/** Levenshtein distance: how far a mistyped path is from each candidate. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
