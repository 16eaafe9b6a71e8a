/**
 * The publish journal of the Parquet lake: how a writer moves its staged files into place so that a kill -9 at any
 * moment is undone (or, past the commit point, completed) by whoever takes the lake's lock next: the next export of
 * any team, or `vwh export recover`.
 *
 * Under the lock, the writer writes `_staging/<run>/_journal.json` (every move: a live file to set aside, a staged
 * file to put in its place), then renames: the live file into `_staging/<run>/_old/…`, the staged file into the
 * lake. Then it marks the journal committed (the commit point), writes the manifests and `_SUCCESS`, and deletes
 * the journal. A journal found without its writer holding the lock is a dead writer's: not committed, its moves
 * are reversed (the previous export comes back, file for file); committed, its manifests are written.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../../core/log.js';
import { processAlive } from '../../core/process.js';
import { inside, writeFileAtomic } from '../paths.js';
import { type LakeLock, withLakeLock } from './lock.js';
import { mergeManifests, type ScopeManifest, writeScopeManifest } from './manifest.js';

export const STAGING = '_staging';
export const JOURNAL = '_journal.json';
const JOURNAL_FORMAT = 'vwh-lake-journal/1';
/** Where a publish sets the live files it replaces or removes, below its staging folder. */
const OLD = '_old';
/** A staging folder of another host is only removed when this old: its writer may still be writing. */
const FOREIGN_STAGING_MS = 24 * 3600_000;

export interface Move {
  /** The live file, relative to the lake. */
  target: string;
  /** The file that takes its place, relative to the run's staging folder; null when the file is only removed. */
  staged: string | null;
}

export interface Journal {
  format: typeof JOURNAL_FORMAT;
  run_id: string;
  state: 'publishing' | 'committed';
  generated_at: string;
  moves: Move[];
  /** The scope manifests that describe the lake once the moves are done. */
  manifests: ScopeManifest[];
}

/** Called before each change of the lake a publish makes (step 0, 1, …): a progress hook, and the tests' kill point. */
export type StepHook = (step: number, what: string) => void;

export class Steps {
  private n = 0;
  constructor(
    private readonly hook: StepHook | undefined,
    private readonly lock: LakeLock,
  ) {}
  next(what: string): void {
    this.hook?.(this.n++, what);
    this.lock.refresh();
  }
}

export function newJournal(runId: string, generatedAt: string, moves: Move[], manifests: ScopeManifest[]): Journal {
  return { format: JOURNAL_FORMAT, run_id: runId, state: 'publishing', generated_at: generatedAt, moves, manifests };
}

/** Publishes `journal` (the caller holds the lock): moves, commit point, manifests, `_SUCCESS`. */
export function publishJournaled(root: string, stagingDir: string, journal: Journal, steps: Steps): void {
  const journalPath = join(stagingDir, JOURNAL);
  steps.next('journal');
  writeFileAtomic(journalPath, JSON.stringify(journal));
  for (const move of journal.moves) {
    const target = inside(root, move.target);
    if (existsSync(target)) {
      steps.next(`set aside ${move.target}`);
      const old = inside(stagingDir, OLD, move.target);
      mkdirSync(dirname(old), { recursive: true });
      renameSync(target, old);
    }
    if (move.staged !== null) {
      steps.next(`place ${move.target}`);
      mkdirSync(dirname(target), { recursive: true });
      renameSync(inside(stagingDir, move.staged), target);
    }
  }
  steps.next('commit');
  writeFileAtomic(journalPath, JSON.stringify({ ...journal, state: 'committed' }));
  finishCommitted(root, stagingDir, journal, steps);
}

/** After the commit point: the manifests, `_SUCCESS`, no empty folders left, the journal gone. */
function finishCommitted(root: string, stagingDir: string, journal: Journal, steps: Steps | undefined): void {
  for (const manifest of journal.manifests) {
    steps?.next(`manifest ${manifest.writer.scope}`);
    writeScopeManifest(root, manifest);
  }
  steps?.next('union manifest');
  writeFileAtomic(
    join(root, '_manifest.json'),
    `${JSON.stringify(mergeManifests(root, journal.generated_at), null, 2)}\n`,
  );
  steps?.next('success');
  writeFileAtomic(join(root, '_SUCCESS'), '');
  pruneEmptyFolders(root, journal.moves);
  steps?.next('journal done');
  rmSync(join(stagingDir, JOURNAL), { force: true });
}

/**
 * Undoes a publish that did not reach its commit point, last move first; each step looks at what is on disk, so
 * an undo that is itself killed is undone again from where it stopped.
 */
function rollBack(root: string, stagingDir: string, journal: Journal): void {
  for (const move of [...journal.moves].reverse()) {
    const target = inside(root, move.target);
    const old = inside(stagingDir, OLD, move.target);
    if (move.staged !== null) {
      const staged = inside(stagingDir, move.staged);
      // the staged file gone and the target there: the new file was placed, take it back
      if (!existsSync(staged) && existsSync(target)) {
        mkdirSync(dirname(staged), { recursive: true });
        renameSync(target, staged);
      }
    }
    if (existsSync(old)) {
      mkdirSync(dirname(target), { recursive: true });
      renameSync(old, target);
    }
  }
  pruneEmptyFolders(root, journal.moves);
  rmSync(join(stagingDir, JOURNAL), { force: true });
}

/** Removes the folders the moves left empty, deepest first, up to (not including) the lake's root. */
export function pruneEmptyFolders(root: string, moves: Move[]): void {
  const base = resolve(root);
  const dirs = new Set<string>();
  for (const move of moves) {
    for (let dir = dirname(inside(base, move.target)); dir !== base && dir.startsWith(base + sep); dir = dirname(dir)) {
      dirs.add(dir);
    }
  }
  for (const dir of [...dirs].sort((a, b) => b.split(sep).length - a.split(sep).length)) removeIfEmpty(dir);
}

export function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or gone: both fine
  }
}

function readJournal(path: string): Journal | undefined {
  try {
    const journal = JSON.parse(readFileSync(path, 'utf8')) as Journal;
    return journal.format === JOURNAL_FORMAT ? journal : undefined;
  } catch {
    return undefined;
  }
}

export interface RecoverySummary {
  /** Publishes undone: their moves reversed, the previous export back. */
  rolledBack: string[];
  /** Publishes past their commit point: their manifests written. */
  completed: string[];
  /** Staging folders of dead runs removed. */
  removed: string[];
}

/**
 * Recovers the lake (the caller holds the lock): every journal is a dead writer's, since a live one holds the lock
 * from its journal's first write to its deletion; staging folders without a journal are removed once their writer
 * is gone (this host: its process is dead; another host: a day old). `exceptRun` is the caller's own folder.
 */
export function recoverUnderLock(root: string, log: Logger, exceptRun?: string): RecoverySummary {
  const summary: RecoverySummary = { rolledBack: [], completed: [], removed: [] };
  const dir = join(root, STAGING);
  if (!existsSync(dir)) return summary;
  for (const name of readdirSync(dir).sort()) {
    if (name === exceptRun) continue;
    const stagingDir = join(dir, name);
    const journal = readJournal(join(stagingDir, JOURNAL));
    if (journal?.state === 'committed') {
      finishCommitted(root, stagingDir, journal, undefined);
      summary.completed.push(name);
      log.warn('completed the publish of an interrupted export (past its commit point)', { run: name });
    } else if (journal) {
      rollBack(root, stagingDir, journal);
      summary.rolledBack.push(name);
      log.warn('undid the publish of an interrupted export: the previous export is back', { run: name });
    } else if (!writerGone(name, stagingDir)) continue;
    rmSync(stagingDir, { recursive: true, force: true });
    summary.removed.push(name);
    log.info('removed the staging folder of an interrupted export', { path: relative(root, stagingDir) });
  }
  removeIfEmpty(dir);
  return summary;
}

/** A staging folder's writer is gone: this host and its process is dead, or another host's and a day old. */
function writerGone(name: string, path: string): boolean {
  const match = /^[0-9TZ]+-(.+)-(\d+)$/.exec(name);
  if (match?.[1] === hostname()) return !processAlive(Number(match[2]));
  try {
    return Date.now() - statSync(path).mtimeMs > FOREIGN_STAGING_MS;
  } catch {
    return false;
  }
}

/** `vwh export recover`: takes the lock and recovers (a no-op on a lake no export died in). */
export async function recoverLake(root: string, log: Logger): Promise<RecoverySummary> {
  const base = resolve(root);
  if (!existsSync(base)) return { rolledBack: [], completed: [], removed: [] };
  return withLakeLock(base, () => recoverUnderLock(base, log));
}
