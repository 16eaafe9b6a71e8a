/**
 * Partial parsing, as dbt keeps it in partial_parse.msgpack: the two parses a project load repeats for every file (a
 * header's YAML; the tables a SELECT reads, DuckDB's parser and the AST walk) depend on the file's text alone, so a
 * load keeps their answers by text, for the process (`TextMemo`) and, for the next process, in a file beside the
 * build's artifacts (`target/partial_parse.json`). A nightly `vwh run` is a new process every night: without the file
 * it parsed the shipped project's 75 files again, for answers that had not changed
 * (docs/lab/2026-11-code-constants.md#the-models).
 *
 * The file holds the texts themselves (about 0.3 MB for the shipped project), so an entry is found only for the same
 * text. It is used only when written by the same parse code: DuckDB's version, the yaml package's and a hash of the
 * modules that parse (header, dependencies, columns-read, sql-text, this one) must all match, so an upgrade or an
 * edited parser starts afresh. An unreadable or foreign file is ignored and replaced.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFolders } from '../core/folders.js';
import { version as duckdbVersion } from '../warehouse/duckdb-api.js';

/** The cache file's name in the target folder (beside manifest.json). */
export const PARSE_CACHE_FILE = 'partial_parse.json';

/** The load a memo's entries were last used by (`beginLoad`): the file keeps only the last load's entries. */
let currentLoad = 0;

/** Answers by text for the life of the process; those the current load used can be written to the cache file. */
export class TextMemo<T> {
  private readonly entries = new Map<string, { value: T; load: number }>();
  /** Entries this memo computed since the process began (those taken from a cache file are not counted; tests). */
  computed = 0;

  constructor(
    /** The memo's name in the file. */
    readonly name: string,
    /** The value as JSON, or undefined for one the file should not keep. */
    private readonly toJson: (value: T) => unknown,
    private readonly fromJson: (json: unknown) => T,
  ) {
    MEMOS.push(this as TextMemo<unknown>);
  }

  get(text: string): T | undefined {
    const entry = this.entries.get(text);
    if (entry) entry.load = currentLoad;
    return entry?.value;
  }

  set(text: string, value: T): void {
    this.computed += 1;
    this.entries.set(text, { value, load: currentLoad });
  }

  /** The entries the current load used, for the file (those `toJson` leaves out, undefined, are not kept). */
  used(): [string, unknown][] {
    const used: [string, unknown][] = [];
    for (const [text, e] of this.entries) {
      const json = e.load === currentLoad ? this.toJson(e.value) : undefined;
      if (json !== undefined) used.push([text, json]);
    }
    return used;
  }

  /** Forgets every entry, as a new process starts (tests). */
  clear(): void {
    this.entries.clear();
  }

  /** Takes a file's entries (not counted as computed), without replacing what this process has. */
  seed(entries: unknown): void {
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || this.entries.has(entry[0])) continue;
      this.entries.set(entry[0], { value: this.fromJson(entry[1]), load: -1 });
    }
  }
}

const MEMOS: TextMemo<unknown>[] = [];

/** Forgets what every memo holds, as a new process starts (tests). */
export function forgetParses(): void {
  for (const memo of MEMOS) memo.clear();
}

/**
 * Starts a project load: from now on, the entries it uses are the ones a cache file written after it keeps. Loads
 * that overlap in one process (the two timelines of the soak test) may write a file that misses entries the other
 * touched first: the next load parses those again. An entry is never wrong: it is found only by its own text.
 */
export function beginLoad(): void {
  currentLoad += 1;
}

/** Seeds the memos from `file` when it was written by this parse code; anything else is ignored. */
export function readParseCache(file: string): void {
  let data: { version?: unknown; memos?: Record<string, unknown> };
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  if (data.version !== cacheVersion() || typeof data.memos !== 'object' || data.memos === null) return;
  for (const memo of MEMOS) memo.seed(data.memos[memo.name]);
}

/** Writes the current load's entries to `file` (atomically), unless it already holds exactly these; never throws. */
export function writeParseCache(file: string): void {
  const memos = Object.fromEntries(MEMOS.map((m) => [m.name, m.used()]));
  const text = `${JSON.stringify({ version: cacheVersion(), memos })}\n`;
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {
    // none yet
  }
  const partial = `${file}.${process.pid}.partial`;
  try {
    makeFolders(dirname(file));
    writeFileSync(partial, text);
    renameSync(partial, file);
  } catch {
    // A cache only saves time: a folder that cannot take it (read-only, full) leaves the next load to parse again.
    if (existsSync(partial)) rmSync(partial, { force: true });
  }
}

let version: string | undefined;

/** What must match for a file's answers to be this code's: the versions, and the parse modules' own text. */
export function cacheVersion(): string {
  if (version !== undefined) return version;
  const here = fileURLToPath(import.meta.url);
  const ext = extname(here);
  const hash = createHash('sha256');
  for (const name of ['parse-cache', 'header', 'dependencies', 'columns-read', 'sql-text']) {
    hash.update(readFileSync(join(dirname(here), `${name}${ext}`)));
  }
  const yaml = (createRequire(import.meta.url)('yaml/package.json') as { version: string }).version;
  version = `duckdb ${duckdbVersion()}; yaml ${yaml}; parse code ${hash.digest('hex').slice(0, 16)}`;
  return version;
}

/** A value JSON gives back as it was (plain objects, arrays, strings, finite numbers, booleans, null). */
export function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value as Record<string, unknown>).every(isPlainJson);
}
