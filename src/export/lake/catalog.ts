/**
 * Where a lake's manifest is kept when it is not in the lake's folder: a catalog (the cluster's PostgreSQL,
 * ops/cluster/lake-catalog.ts) that records every scope's files and commits a publish in one transaction, under a
 * lock of its own (no `_manifest.lock`). The export writes and renames the files (lake/catalog-publish.ts); the
 * catalog says which of them are the lake. Without a catalog the lake's manifests are files (lake/journal.ts).
 */
import type { ScopeManifest } from './manifest.js';

export interface LakeCatalog {
  /** What messages name it by (`PostgreSQL vwh.lake_partitions, lake "lake"`), never a password. */
  readonly name: string;
  /** Every scope's manifest as last committed, by scope, in the scopes' order. */
  read(): Promise<Map<string, ScopeManifest>>;
  /**
   * Holds the lake's lock while `change` runs with the scopes as committed: the manifests it returns replace their
   * scopes' records in one transaction, committed when it returns (nothing is recorded when it throws); then, still
   * under the lock, `after` runs with every scope's manifest as committed.
   */
  publish(
    change: (current: ReadonlyMap<string, ScopeManifest>) => Promise<ScopeManifest[]> | ScopeManifest[],
    after: (committed: ReadonlyMap<string, ScopeManifest>) => Promise<void> | void,
  ): Promise<void>;
}
