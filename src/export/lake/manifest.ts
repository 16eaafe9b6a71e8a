/**
 * The lake's manifests. Each writer owns the manifest of the teams it exports (`_manifests/team_id=<team>.json`,
 * `_manifests/unpartitioned.json` for tables without a team), so writers never rewrite each other's records;
 * `_manifest.json` is the union of them all, rebuilt under the lake's lock (lake/lock.ts) by whichever writer finishes.
 * With a catalog (lake/catalog.ts) the scope manifests live there, not in `_manifests/`, and `_manifest.json` is
 * their union as the catalog last committed it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../paths.js';

export const LAKE_FORMAT = 'vwh-lake/1';

export interface ManifestColumn {
  name: string;
  /** Type written, in DuckDB's spelling (see docs/lake.md for each reader's type). */
  type: string;
  source_type: string;
}

export interface ManifestPartition {
  /** Relative to the table's folder: `team_id=…/month=YYYY-MM`, or `team_id=…`, or `` */
  path: string;
  /**
   * A slot file of a month split by its days (0: days 1-8, 1: 9-16, 2: 17-24, 3: 25-31; lake/layout.ts): several
   * entries share the month's `path`, each with its own file, hash and rows. Absent: the partition is one file.
   */
  slot?: number;
  team_id: string | null;
  rows: number;
  bytes: number;
  /** Content hash of the partition's rows and the table's schema: unchanged hash, file not rewritten. */
  hash: string;
  files: string[];
  /**
   * The warehouse's storage of the rows the partition's month can hold when its hash was taken (lake/storage.ts):
   * the next export keeps the hash without reading a row while it is unchanged. Absent: hashed every time.
   */
  storage_key?: string;
  /** The teams with rows in the partition's month then (a hash of them): the month's partitions kept together. */
  storage_teams?: string;
}

export interface ManifestTable {
  /** Relative to the lake: `marts/brand_visibility_daily`. */
  path: string;
  /** Hive partition columns, outermost first; they live in the path, not in the files. */
  partition_by: string[];
  columns: ManifestColumn[];
  partitions: ManifestPartition[];
}

export interface WriterRecord {
  /** `team_id=<team>` or `unpartitioned`. */
  scope: string;
  run_id: string;
  generated_at: string;
  /** The sync runs whose rows the export holds (the newest finished run of each team in the warehouse). */
  sync_runs: { run_id: string; team_id: string; status: string; ended_at: string | null }[];
  /** The models build the marts come from (newest run of ops.model_runs). */
  model_build: { run_id: string; finished_at: string } | null;
}

export interface ScopeManifest {
  format: typeof LAKE_FORMAT;
  writer: WriterRecord;
  tables: Record<string, ManifestTable>;
}

export interface LakeTableSummary extends ManifestTable {
  rows: number;
  files: number;
  bytes: number;
}

export interface LakeManifest {
  format: typeof LAKE_FORMAT;
  generated_at: string;
  writers: WriterRecord[];
  tables: Record<string, LakeTableSummary>;
}

export const MANIFESTS_DIR = '_manifests';

export function scopeFile(root: string, scope: string): string {
  return join(root, MANIFESTS_DIR, `${scope}.json`);
}

export function readScopeManifest(root: string, scope: string): ScopeManifest | undefined {
  const file = scopeFile(root, scope);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as ScopeManifest;
    return parsed.format === LAKE_FORMAT ? parsed : undefined;
  } catch {
    // A manifest that does not parse is treated as absent: every partition of its scope is rewritten.
    return undefined;
  }
}

export function writeScopeManifest(root: string, manifest: ScopeManifest): void {
  writeFileAtomic(scopeFile(root, manifest.writer.scope), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Every scope manifest of the lake that parses, by scope, in the scopes' order. */
export function readScopeManifests(root: string): Map<string, ScopeManifest> {
  const dir = join(root, MANIFESTS_DIR);
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  const out = new Map<string, ScopeManifest>();
  for (const file of files) {
    const name = file.slice(0, -'.json'.length);
    const scope = readScopeManifest(root, name);
    if (scope) out.set(name, scope);
  }
  return out;
}

/** Every scope manifest of the lake, merged: tables' partitions unioned, writers listed. */
export function mergeManifests(root: string, generatedAt: string): LakeManifest {
  return mergeScopes(readScopeManifests(root).values(), generatedAt);
}

/** The scope manifests (in the scopes' order) as the lake's one `_manifest.json`. */
export function mergeScopes(scopes: Iterable<ScopeManifest>, generatedAt: string): LakeManifest {
  const merged: LakeManifest = { format: LAKE_FORMAT, generated_at: generatedAt, writers: [], tables: {} };
  const schemaAt = new Map<string, string>();
  for (const scope of scopes) {
    merged.writers.push(scope.writer);
    for (const [name, table] of Object.entries(scope.tables)) {
      const into = merged.tables[name] ?? { ...table, partitions: [], rows: 0, files: 0, bytes: 0 };
      // The newest writer's schema describes the table; the partitions of every writer are listed.
      if (scope.writer.generated_at >= (schemaAt.get(name) ?? '')) {
        into.columns = table.columns;
        schemaAt.set(name, scope.writer.generated_at);
      }
      for (const part of table.partitions) {
        into.partitions.push(part);
        into.rows += part.rows;
        into.files += part.files.length;
        into.bytes += part.bytes;
      }
      merged.tables[name] = into;
    }
  }
  for (const table of Object.values(merged.tables)) table.partitions.sort(byPartition);
  return merged;
}

/** The order partitions are listed in: by path, then a month's slot files by slot. */
export function byPartition(a: ManifestPartition, b: ManifestPartition): number {
  return a.path.localeCompare(b.path) || (a.slot ?? 0) - (b.slot ?? 0);
}
