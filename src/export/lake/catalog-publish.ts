/**
 * A lake whose manifest is a catalog's (lake/catalog.ts): how a publish moves files so that the catalog alone says
 * which files are the lake. A changed partition's files get names of their own (`part-0.<tag>.parquet`), so the new
 * files are renamed in beside the ones they replace; the catalog's transaction records them and drops the replaced
 * records; only after the commit are `_manifest.json` (the catalog's union) and `_SUCCESS` written and the replaced
 * files deleted. Killed before the commit: the new files are in the folder, listed nowhere; killed after it: the
 * replaced files and a stale `_manifest.json` are left. Either way the next export (or `vwh export recover`, or a
 * worker starting) repairs the folder from the catalog: unlisted files deleted, `_manifest.json` rewritten.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { Logger } from '../../core/log.js';
import { inside, writeFileAtomic } from '../paths.js';
import type { LakeCatalog } from './catalog.js';
import { type Move, pruneEmptyFolders, recoverUnderLock, type StepHook, Steps } from './journal.js';
import { mergeScopes, type ScopeManifest } from './manifest.js';

/** A catalog's publish found the scopes it writes changed since it planned (another writer of the same scope). */
export class LakeConflict extends Error {}

/** `part-0.parquet` as the file a publish tagged `tag` places: `part-0.<tag>.parquet`. */
export function taggedName(file: string, tag: string): string {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? `${file}.${tag}` : `${file.slice(0, dot)}.${tag}${file.slice(dot)}`;
}

export interface CatalogPublish {
  root: string;
  stagingDir: string;
  catalog: LakeCatalog;
  /** The lake's scope manifests the export planned from (the catalog's at its start). */
  planned: ReadonlyMap<string, ScopeManifest>;
  /** Builds the moves and the export's scope manifests against the scopes as committed now. */
  build: (current: ReadonlyMap<string, ScopeManifest>) => { moves: Move[]; scopes: ScopeManifest[] };
  /** Checks the export's tables against the other scopes as committed now (throws before any change). */
  check: (current: ReadonlyMap<string, ScopeManifest>, own: ReadonlySet<string>) => void;
  log: Logger;
  onStep?: StepHook;
}

/** Publishes through the catalog: staged files renamed in, one commit, then the manifest and the replaced files. */
export async function publishToCatalog(p: CatalogPublish): Promise<void> {
  const steps = new Steps(p.onStep, { refresh() {} });
  let removals: Move[] = [];
  await p.catalog.publish(
    (current) => {
      const { moves, scopes } = p.build(current);
      const own = new Set(scopes.map((s) => s.writer.scope));
      // every file the publish lists is one it places or one the catalog lists now: a partition it kept that another
      // writer of the scope replaced since the plan (a table without a team: every team's export writes it) would
      // be listed without its file, so the export plans again
      const placed = new Set(moves.filter((m) => m.staged !== null).map((m) => m.target));
      const listed = listedFiles([...own].flatMap((scope) => current.get(scope) ?? []));
      const stale = [...listedFiles(scopes)].find((file) => !placed.has(file) && !listed.has(file));
      if (stale) throw new LakeConflict(`${stale} was replaced by another export since this one planned`);
      p.check(current, own);
      for (const move of moves) {
        if (move.staged === null) continue;
        steps.next(`place ${move.target}`);
        renameInto(p.root, p.stagingDir, move);
      }
      removals = moves.filter((m) => m.staged === null);
      steps.next('commit');
      return scopes;
    },
    (committed) => {
      steps.next('union manifest');
      writeUnionManifest(p.root, committed);
      steps.next('success');
      writeFileAtomic(join(p.root, '_SUCCESS'), '');
      for (const move of removals) {
        steps.next(`remove ${move.target}`);
        rmSync(inside(p.root, move.target), { force: true });
      }
      pruneEmptyFolders(p.root, removals);
    },
  );
}

/** The target's name is this publish's own (taggedName): the rename replaces no file. */
function renameInto(root: string, stagingDir: string, move: Move): void {
  const target = inside(root, move.target);
  mkdirSync(dirname(target), { recursive: true });
  renameSync(inside(stagingDir, move.staged as string), target);
}

/** `_manifest.json` as the catalog lists the lake, written only when it says something else than the file does. */
export function writeUnionManifest(root: string, committed: ReadonlyMap<string, ScopeManifest>): boolean {
  const scopes = [...committed.values()];
  // the newest publish's time, not the clock's: the same catalog gives the same file
  const at = scopes.reduce((max, s) => (s.writer.generated_at > max ? s.writer.generated_at : max), '');
  const text = `${JSON.stringify(mergeScopes(scopes, at), null, 2)}\n`;
  const path = join(root, '_manifest.json');
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return false;
  writeFileAtomic(path, text);
  return true;
}

export interface CatalogRepair {
  /** Files in the lake's tables that the catalog does not list (a killed publish's, or replaced ones) removed. */
  removed: string[];
  /** `_manifest.json` rewritten from the catalog. */
  manifest: boolean;
}

/**
 * Makes the folder what the catalog lists, under the catalog's lock: every Parquet file of a table the catalog
 * knows that it does not list is deleted, dead writers' staging folders removed, `_manifest.json` rewritten when it
 * differs. `exceptRun`: the caller's own staging folder.
 */
export async function repairFromCatalog(
  root: string,
  catalog: LakeCatalog,
  log: Logger,
  exceptRun?: string,
): Promise<CatalogRepair> {
  const repair: CatalogRepair = { removed: [], manifest: false };
  await catalog.publish(
    () => [],
    (committed) => {
      recoverUnderLock(root, log, exceptRun);
      const listed = listedFiles(committed.values());
      const tables = new Set(
        [...committed.values()].flatMap((scope) => Object.values(scope.tables).map((t) => t.path)),
      );
      for (const table of [...tables].sort()) {
        for (const file of parquetFiles(inside(root, table))) {
          const rel = relative(root, file).split(sep).join('/');
          if (listed.has(rel)) continue;
          rmSync(file, { force: true });
          repair.removed.push(rel);
        }
      }
      pruneEmptyFolders(
        root,
        repair.removed.map((target) => ({ target, staged: null })),
      );
      if (repair.removed.length > 0) {
        log.warn('removed lake files the catalog does not list (an interrupted or replaced export)', {
          files: repair.removed.length,
          catalog: catalog.name,
        });
      }
      repair.manifest = committed.size > 0 && writeUnionManifest(root, committed);
      if (repair.manifest) log.info('rewrote _manifest.json from the catalog', { catalog: catalog.name });
    },
  );
  return repair;
}

function parquetFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...parquetFiles(path));
    else if (entry.name.endsWith('.parquet')) out.push(path);
  }
  return out;
}

/** Every file the scopes list, relative to the lake (`marts/t/team_id=a/month=2026-01/part-0.x.parquet`). */
function listedFiles(scopes: Iterable<ScopeManifest>): Set<string> {
  const out = new Set<string>();
  for (const scope of scopes) {
    for (const table of Object.values(scope.tables)) {
      for (const part of table.partitions) {
        for (const file of part.files) out.add([table.path, part.path, file].filter(Boolean).join('/'));
      }
    }
  }
  return out;
}
