/**
 * Where a run's files are: the warehouse and its published copy, as absolute paths (what every message names), the
 * warehouses near a path that does not exist (a mistyped --db), the lake, the events journal, and the list of them no
 * output may land on. A module of its own, importing nothing heavy, so that `vwh status`, `vwh events listen` and
 * `vwh schedule` find their files without loading the pipeline.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ExportsSection, SyncConfig } from '../core/config.js';
import { loadConfigLazily } from '../core/config-lazy.js';
import { DEFAULT_DB_PATH } from '../core/defaults.js';
import { type GuardedInput, type InputKind, refuseInputs } from '../core/folders.js';
import { editDistance } from '../core/nearest.js';
import { defaultTargetDir } from '../models/artifacts/write.js';
import { lockPathFor } from './lock.js';

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
  return [...found]
    .sort((a, b) => editDistance(a, target) - editDistance(b, target) || a.localeCompare(b))
    .slice(0, limit);
}

/** `; warehouses nearby: a, b` or nothing: the tail of a message about a path that does not exist. */
export function nearbyNote(path: string): string {
  const near = nearbyWarehouses(path);
  return near.length ? ` Warehouses nearby: ${near.join(', ')}.` : '';
}

/**
 * The exports of a run: the config's `exports`, or without one the Parquet lake in `lake/` and the HTML report in
 * `reports/report.html` beside the warehouse; `"exports": {}` turns exports off.
 */
export function exportsOf(dbPath: string, config: SyncConfig): ExportsSection {
  const beside = dirname(dbPath);
  return (
    config.exports ?? {
      parquet: { outDir: join(beside, 'lake') },
      html: { out: join(beside, 'reports', 'report.html') },
    }
  );
}

/** The webhook journal `vwh events listen` writes and the run ingests: `events.journalDir`, else events/ beside the db. */
export function journalDirOf(dbPath: string, config: SyncConfig): string {
  return config.events?.journalDir ?? join(dirname(dbPath), 'events');
}

/** `<warehouse>.runs.json`: the newest runs of the ledger, newest first, rewritten (atomically) after every write. */
export function ledgerMirrorPath(dbPath: string): string {
  return `${dbPath}.runs.json`;
}

/** `<warehouse>.embedded-world.json`: the embedded world a warehouse was first filled from, and its first day. */
export function anchorPathOf(dbPath: string): string {
  return `${dbPath}.embedded-world.json`;
}

/**
 * The warehouse file, its write-ahead log and the files vwh keeps beside it: the run lock (an output written over it
 * blocked every run), the ledger's mirror and the embedded world's anchor. The rate budget lives in the warehouse.
 */
export function warehouseInputs(dbPath: string): GuardedInput[] {
  return [
    { kind: 'warehouse', path: dbPath, what: 'the warehouse' },
    { kind: 'wal', path: `${dbPath}.wal`, what: "the warehouse's write-ahead log" },
    { kind: 'state', path: lockPathFor(dbPath), what: 'the run lock (one vwh run at a time on this warehouse)' },
    { kind: 'state', path: ledgerMirrorPath(dbPath), what: "the run ledger's mirror (vwh status reads it)" },
    {
      kind: 'state',
      path: anchorPathOf(dbPath),
      what: "the embedded world's anchor (the first day of the demo world this warehouse holds)",
    },
  ];
}

/** What the tool reads or serves for the warehouse `dbPath` under `config`: no output may replace or write into it. */
export function guardedInputs(dbPath: string, config: SyncConfig): GuardedInput[] {
  const inputs = warehouseInputs(dbPath);
  const published = publishPathOf(dbPath, config);
  if (published) inputs.push({ kind: 'published', path: published, what: 'the published copy (publish.path)' });
  const lake = exportsOf(dbPath, config).parquet?.outDir;
  if (lake) inputs.push({ kind: 'lake', path: lake, what: 'the Parquet lake (exports.parquet.outDir)' });
  inputs.push({ kind: 'journal', path: journalDirOf(dbPath, config), what: 'the events journal (events.journalDir)' });
  return inputs;
}

/**
 * The guarded inputs for a command that takes `--db` but no config (report, export, models): those of `--db` and,
 * when ./vwh.config.json is there and valid, those of the config's own warehouse. A config that does not load is the
 * run's business, not the report's: the defaults beside `--db` are still guarded.
 */
export async function guardedInputsOf(db: string): Promise<GuardedInput[]> {
  let config: SyncConfig = {};
  try {
    config = await loadConfigLazily(undefined);
  } catch {
    // the defaults beside --db
  }
  const inputs = guardedInputs(db, config);
  if (config.db && config.db !== db) inputs.push(...guardedInputs(config.db, config));
  return inputs;
}

/**
 * Every output of a run (the published copy, the exports, the models' artifacts) checked against the run's inputs
 * before it starts: USAGE (exit 64) naming the config field, instead of a run that replaces its own warehouse.
 * The events journal too, which `vwh events listen` writes beside the run.
 */
export function refuseRunOutputsOnInputs(dbPath: string, config: SyncConfig): void {
  const inputs = guardedInputs(dbPath, config);
  const exports = exportsOf(dbPath, config);
  const outputs: [string | undefined, string, InputKind?][] = [
    [publishPathOf(dbPath, config), 'publish.path', 'published'],
    [exports.parquet?.outDir, 'exports.parquet.outDir', 'lake'],
    [exports.arrow?.outDir, 'exports.arrow.outDir'],
    [exports.html?.out, 'exports.html.out'],
    [journalDirOf(dbPath, config), 'events.journalDir', 'journal'],
    [defaultTargetDir(dbPath), "the models' target folder (target/ beside the warehouse)"],
  ];
  for (const [path, flag, own] of outputs) if (path) refuseInputs(path, flag, inputs, own);
}

/**
 * `vwh run`'s first line: the warehouse it writes (new or existing) and the published copy, as absolute paths; the
 * fields of the same for a JSON log.
 */
export function describeWhere(
  db: string,
  published: string | undefined,
): { line: string; fields: Record<string, unknown> } {
  const size = statSync(db, { throwIfNoEntry: false })?.size;
  const state =
    size === undefined ? 'new: nothing there yet, so this run syncs the whole history' : `existing, ${mb(size)}`;
  return {
    line: `vwh run: writing ${db} (${state})${published ? `; published copy ${published}` : '; publishing is off'}`,
    fields: { db, new: size === undefined, published: published ?? null },
  };
}

function mb(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
