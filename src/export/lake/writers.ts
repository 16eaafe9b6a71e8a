/**
 * The other writers of a shared lake (docs/scaling.md): before a writer publishes, every table it writes is compared
 * with what the lake's other scopes (`_manifests/*.json` of teams this export does not hold) say they wrote. A Hive
 * reader sees one table across all of them, so their partition columns and their columns must be the same: with
 * `team_id/month` files beside `team_id` files DuckDB refuses the whole table ("Hive partition mismatch"),
 * and a column one writer has and another has not is silently dropped or fails the read, a type that differs is
 * cast to the first file's. Such a publish is refused (exit 64) before it changes anything.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VwhError } from '../../core/errors.js';
import { MANIFESTS_DIR, type ManifestTable, readScopeManifest, type ScopeManifest } from './manifest.js';

/** What a Hive reader binds of a table: its partition columns, then its columns as `name type`, by name. */
function shapeOf(table: Pick<ManifestTable, 'partition_by' | 'columns'>): { partitions: string; columns: string[] } {
  return {
    partitions: table.partition_by.join('/') || '(none)',
    columns: table.columns.map((c) => `${c.name} ${c.type}`).sort(),
  };
}

export type TableShapes = Map<string, Pick<ManifestTable, 'partition_by' | 'columns'> & { files: number }>;

/**
 * Throws USAGE when a table this export writes (with files) is held by another scope of the lake (with files) in
 * another shape. `tables`: the tables this export lists, by key; `own`: the scopes it writes.
 */
export function checkOtherWriters(root: string, tables: TableShapes, own: ReadonlySet<string>): void {
  const dir = join(root, MANIFESTS_DIR);
  if (!existsSync(dir)) return;
  const others = new Map<string, ScopeManifest | undefined>();
  for (const file of readdirSync(dir).sort()) {
    const scope = file.endsWith('.json') ? file.slice(0, -'.json'.length) : undefined;
    if (scope !== undefined && !own.has(scope)) others.set(scope, readScopeManifest(root, scope));
  }
  checkShapes(root, tables, others, (scope) => `${join(MANIFESTS_DIR, `${scope}.json`)}`);
}

/**
 * The same check against the other scopes' manifests as a catalog lists them (`others`: every scope but the
 * export's own); `record` names where a scope's record lives, for the message.
 */
export function checkShapes(
  root: string,
  tables: TableShapes,
  others: ReadonlyMap<string, ScopeManifest | undefined>,
  record: (scope: string) => string,
): void {
  for (const [scope, other] of others) {
    for (const [key, theirs] of Object.entries(other?.tables ?? {})) {
      const mine = tables.get(key);
      if (!mine || mine.files === 0 || !theirs.partitions.some((p) => p.files.length > 0)) continue;
      const a = shapeOf(mine);
      const b = shapeOf(theirs);
      const onlyMine = a.columns.filter((c) => !b.columns.includes(c));
      const onlyTheirs = b.columns.filter((c) => !a.columns.includes(c));
      if (a.partitions === b.partitions && onlyMine.length === 0 && onlyTheirs.length === 0) continue;
      const what =
        a.partitions !== b.partitions
          ? `partitioned ${a.partitions} here, ${b.partitions} there`
          : [
              onlyMine.length > 0 ? `only here: ${onlyMine.join(', ')}` : '',
              onlyTheirs.length > 0 ? `only there: ${onlyTheirs.join(', ')}` : '',
            ]
              .filter(Boolean)
              .join('; ');
      throw new VwhError(
        'USAGE',
        `${key} differs from the files ${scope} wrote into ${root} (${what}, by ${other?.writer.run_id}); a Hive ` +
          'reader reads one table across every writer, so every writer of a lake must export the same tables in the ' +
          `same shape: run the same vwh version and models on every machine (upgrade them together), or remove ${scope}'s ` +
          `files and ${record(scope)} if no writer exports that team any more. Nothing was changed.`,
        { details: { table: key, scope } },
      );
    }
  }
}
