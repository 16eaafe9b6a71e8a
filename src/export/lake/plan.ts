/**
 * Which partitions of a table the export rewrites. Each partition has a content hash (lake/layout.ts); a partition
 * whose hash is the manifest's, with its files in place, is kept. The hashes are not all taken again: the months
 * whose rows sit in row groups the warehouse still stores as they were when the manifest's hashes were taken
 * (lake/storage.ts) keep the manifest's hashes, and only the other months are read, through a date range DuckDB
 * prunes by its zonemaps. A night that rebuilt the last days of the models reads the current month (and the one
 * before when the days reach into it); a table rebuilt in full, or whose storage proves nothing, is read in full.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from '../../warehouse/session.js';
import { checkSegment } from '../paths.js';
import {
  LAST_SLOT,
  monthAfter,
  monthsWhere,
  NULL_PARTITION,
  partitionHash,
  partitionPath,
  partitionStatsSql,
  SLOT_DAYS,
  type TableLayout,
} from './layout.js';
import { byPartition, type ManifestPartition, type ScopeManifest } from './manifest.js';
import { monthsBetween, type RowGroupPrint } from './storage.js';

export interface PlannedPartition extends ManifestPartition {
  /** The values of the layout's `keyNames`: the Hive keys, then the slot of a slot file. */
  values: string[];
  changed: boolean;
  /** Where the write put each of `files`, relative to the table's staging folder (when not `path/<file>`). */
  staged?: string[];
}

export interface PlannedTable {
  key: string;
  layout: TableLayout;
  partitions: PlannedPartition[];
  /** The rows read and hashed: `all`, `none`, or the runs of months (`2025-11..2025-12,2026-10..2026-11`). */
  read: string;
  /** The rows the write must read: the changed partitions' months (all rows when undefined). */
  writeWhere?: string;
}

/** Past this many months in one row group's zonemap, the table is hashed in full (a date far off the calendar). */
const MAX_MONTHS = 1_200;

/** The storage the table's rows come from: its row groups' prints, and raw.projects' when its team comes from there. */
export interface TableStorage {
  prints: RowGroupPrint[] | undefined;
  projects?: RowGroupPrint[] | undefined;
}

export async function planTable(
  session: Session,
  root: string,
  layout: TableLayout,
  key: string,
  /** Every scope manifest of the lake, by scope. */
  manifests: ReadonlyMap<string, ScopeManifest>,
  storage: TableStorage,
): Promise<PlannedTable> {
  const recorded = new Map<string, ManifestPartition[]>();
  for (const manifest of manifests.values()) {
    for (const part of manifest.tables[key]?.partitions ?? []) {
      const unit = unitOf(layout, valuesOf(part.path));
      recorded.set(unit, [...(recorded.get(unit) ?? []), part]);
    }
  }
  const keyOf = storageKeys(layout, storage);
  const units = keyOf ? unitsOf(layout, storage.prints as RowGroupPrint[]) : undefined;

  // the units whose recorded partitions all describe the storage as it is
  const kept = new Map<string, ManifestPartition[]>();
  const toHash: string[] = [];
  for (const unit of units ?? []) {
    const storageKey = keyOf?.(unit);
    const same = (recorded.get(unit) ?? []).filter((p) => p.storage_key === storageKey);
    const teams = teamsHash(same.map((p) => p.team_id));
    if (same.length > 0 && same.every((p) => p.storage_teams === teams)) kept.set(unit, same);
    else toHash.push(unit);
  }
  // the units read again: all rows, or the runs of consecutive months among them (whose hashes the read replaces,
  // kept or not); one range per run, not one from the first to the last: a night that changed the newest month and
  // the oldest (DuckDB's checkpoint merged row groups at the head of the table) reads those, not the year between
  const read = units === undefined || toHash.length > 0;
  let where: string | undefined;
  let span = read ? 'all' : 'none';
  if (read && units !== undefined && toHash.every(isMonth)) {
    const runs = monthRuns(toHash);
    where = runsWhere(layout, runs);
    if (where) span = runs.map(([first, last]) => (first === last ? first : `${first}..${last}`)).join(',');
    for (const unit of kept.keys()) {
      if (where === undefined || runs.some(([first, last]) => first <= unit && unit <= last)) kept.delete(unit);
    }
  } else if (read) kept.clear();

  const partitions: PlannedPartition[] = [];
  if (read) {
    const stats = await session.all<Record<string, string> & { n: number; x: string; s: string }>(
      partitionStatsSql(layout, where),
    );
    for (const row of stats) {
      const values = layout.keyNames.map((name) => checkSegment(String(row[name]), `Partition value of ${name}`));
      const path = partitionPath(layout, values);
      const teamId = teamOf(layout, values);
      const slot = slotOf(layout, values);
      const hash = partitionHash(layout, Number(row.n), row.x, row.s);
      const before = manifests
        .get(scopeOf(layout, teamId))
        ?.tables[key]?.partitions.find((p) => p.path === path && p.slot === slot);
      const intact = before?.hash === hash && filesInPlace(root, layout, path, before.files);
      partitions.push({
        path,
        ...(slot === undefined ? {} : { slot }),
        values,
        team_id: teamId,
        rows: Number(row.n),
        hash,
        changed: !intact,
        files: intact && before ? before.files : [],
        bytes: intact && before ? before.bytes : 0,
      });
    }
  }
  for (const same of kept.values()) {
    for (const part of same) {
      const values = [...valuesOf(part.path), ...(layout.slots ? [String(part.slot ?? 0)] : [])];
      const intact = filesInPlace(root, layout, part.path, part.files);
      partitions.push({
        ...part,
        values,
        changed: !intact,
        files: intact ? part.files : [],
        bytes: intact ? part.bytes : 0,
      });
    }
  }
  // what the next export compares with: the storage each unit's hashes were taken at, and the unit's teams
  if (keyOf) {
    const teams = new Map<string, (string | null)[]>();
    for (const p of partitions) {
      const unit = unitOf(layout, p.values);
      teams.set(unit, [...(teams.get(unit) ?? []), p.team_id]);
    }
    for (const p of partitions) {
      const unit = unitOf(layout, p.values);
      p.storage_key = keyOf(unit);
      p.storage_teams = teamsHash(teams.get(unit) ?? []);
    }
  }
  partitions.sort(byPartition);
  const changedMonths = partitions.filter((p) => p.changed).map((p) => unitOf(layout, p.values));
  const plan: PlannedTable = {
    key,
    layout,
    partitions,
    read: span,
  };
  if (changedMonths.length > 0 && changedMonths.every(isMonth)) {
    // slot files: the days of the changed slots only (a night's slot is a quarter of its month's rows), read by
    // zonemap rather than the month's rows filtered by their keys
    const writeWhere = layout.slots
      ? slotsWhere(
          layout,
          partitions.filter((p) => p.changed),
        )
      : runsWhere(layout, monthRuns(changedMonths));
    if (writeWhere) plan.writeWhere = writeWhere;
  }
  return plan;
}

/**
 * Rows a month of a table must hold, on average over the months it spans, for its months to be written as slot files
 * (lake/layout.ts, SLOT_DAYS): about 32,000 rows a file and more. Below it a month is one file: at an agency's size
 * (10 projects) the largest mart holds about 54,000 rows a month, whose quarters would be files too small to write
 * at a single file's pace; at 100 projects it holds 500,000, and a night that rewrote the month's file wrote
 * 360,000 rows for 4 days. A lower threshold made files too small at 30 projects and the full export slower; at
 * 131,072 only the largest mart is slot files there (docs/lab/2026-11-export-lake.md, "What slot files cost").
 */
export const SLOT_MIN_MONTH_ROWS = 131_072;

/**
 * Whether the table's months are written as slot files: once a lake holds the table so, always (a month that went
 * back to one file would, while it is published, be read beside the slot files it replaces); otherwise when its rows
 * (`rows`, DuckDB's count) per month its row groups span reach `minMonthRows`. A table whose storage proves nothing
 * (no prints) keeps one file a month.
 */
export function splitsMonths(
  key: string,
  manifests: ReadonlyMap<string, ScopeManifest>,
  prints: RowGroupPrint[] | undefined,
  rows: number | undefined,
  minMonthRows: number,
): boolean {
  for (const manifest of manifests.values()) {
    if (manifest.tables[key]?.partitions.some((p) => p.slot !== undefined)) return true;
  }
  if (!prints || rows === undefined) return false;
  const months = new Set<string>();
  for (const p of prints) {
    if (p.first === undefined || p.last === undefined) continue;
    const spanned = monthsBetween(p.first, p.last);
    if (spanned.length > MAX_MONTHS) return false;
    for (const m of spanned) months.add(m);
  }
  return months.size > 0 && rows / months.size >= minMonthRows;
}

/** The rows of the changed slot files' days: one date range per run of consecutive slots (`date >= … AND date < …`). */
function slotsWhere(layout: TableLayout, changed: PlannedPartition[]): string | undefined {
  if (!layout.date) return undefined;
  const ranges = new Map<string, string>();
  for (const p of changed) {
    const month = unitOf(layout, p.values);
    if (!isMonth(month) || p.slot === undefined) return undefined;
    const first = `${month}-${String(1 + p.slot * SLOT_DAYS).padStart(2, '0')}`;
    // the next slot's first day, or the next month's first
    const end =
      p.slot < LAST_SLOT
        ? `${month}-${String(1 + (p.slot + 1) * SLOT_DAYS).padStart(2, '0')}`
        : `${monthAfter(month)}-01`;
    ranges.set(first, end);
  }
  // consecutive slots (one's end the next one's first day) as one range
  const merged: [string, string][] = [];
  for (const first of [...ranges.keys()].sort()) {
    const end = ranges.get(first) as string;
    const last = merged.at(-1);
    if (last && last[1] === first) last[1] = end;
    else merged.push([first, end]);
  }
  return anyOf(merged.map(([first, end]) => `${layout.date} >= DATE '${first}' AND ${layout.date} < DATE '${end}'`));
}

/** Rows any of the conditions selects. */
function anyOf(conditions: string[]): string {
  return conditions.length === 1 ? (conditions[0] as string) : conditions.map((c) => `(${c})`).join(' OR ');
}

/** The months (`YYYY-MM`, any order, repeats allowed) as runs of consecutive months, `[first, last]` each, in order. */
function monthRuns(months: string[]): [string, string][] {
  const runs: [string, string][] = [];
  for (const month of [...new Set(months)].sort()) {
    const run = runs.at(-1);
    if (run && monthsBetween(run[1], month).length === 2) run[1] = month;
    else runs.push([month, month]);
  }
  return runs;
}

/** The rows of the runs' months: one range of the date column each, which DuckDB checks against the zonemaps. */
function runsWhere(layout: TableLayout, runs: [string, string][]): string | undefined {
  const ranges = runs.map(([first, last]) => monthsWhere(layout, first, last));
  if (ranges.length === 0 || ranges.some((r) => r === undefined)) return undefined;
  return anyOf(ranges as string[]);
}

export function scopeOf(layout: TableLayout, teamId: string | null): string {
  return layout.partitionBy[0] === 'team_id' && teamId !== null ? `team_id=${teamId}` : 'unpartitioned';
}

function teamOf(layout: TableLayout, values: string[]): string | null {
  return layout.partitionBy[0] === 'team_id' ? (values[0] ?? null) : null;
}

/** The slot of a slot file (its value after the Hive keys'), undefined for a partition written as one file. */
function slotOf(layout: TableLayout, values: string[]): number | undefined {
  return layout.slots ? Number(values[layout.partitionBy.length]) : undefined;
}

/** The partition's values from its path (`team_id=a/month=2026-01`). */
function valuesOf(path: string): string[] {
  return path === '' ? [] : path.split('/').map((segment) => segment.slice(segment.indexOf('=') + 1));
}

/** The unit whose hashes are kept or taken together: the month of a month-partitioned table, else the table. */
function unitOf(layout: TableLayout, values: string[]): string {
  return layout.date ? (values[layout.partitionBy.length - 1] ?? '') : '';
}

function isMonth(unit: string): boolean {
  return /^\d{4}-\d{2}$/.test(unit);
}

function filesInPlace(root: string, layout: TableLayout, path: string, files: string[]): boolean {
  return files.every((f) => existsSync(join(root, layout.table.schema, layout.table.name, path, f)));
}

function teamsHash(teams: (string | null)[]): string {
  const sorted = [...new Set(teams.map((t) => t ?? ''))].sort();
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
}

/**
 * The storage key of each unit: the table's schema and SQL, and the prints of the row groups that can hold the
 * unit's rows (for a month, those whose date zonemap reaches it; for anything else, all of them), with raw.projects'
 * when the team comes from there. Undefined when the storage proves nothing.
 */
function storageKeys(layout: TableLayout, storage: TableStorage): ((unit: string) => string) | undefined {
  const { prints } = storage;
  if (!prints || (layout.readsProjects && !storage.projects)) return undefined;
  const base = [layout.schemaHash, layout.sql, ...(storage.projects ?? []).map((p) => p.print)].join('\n');
  const digest = (unit: string, parts: RowGroupPrint[]) =>
    createHash('sha256')
      .update(`${base}\n${unit}\n${parts.map((p) => p.print).join('\n')}`)
      .digest('hex')
      .slice(0, 32);
  const all = digest('*', prints);
  return (unit) =>
    isMonth(unit) && layout.date
      ? digest(
          unit,
          prints.filter((p) => p.first !== undefined && p.last !== undefined && p.first <= unit && unit <= p.last),
        )
      : all;
}

/** The units the table's rows may fall in now: the months its row groups' zonemaps span, or the whole table. */
function unitsOf(layout: TableLayout, prints: RowGroupPrint[]): string[] | undefined {
  if (!layout.date) return [''];
  const units = new Set<string>();
  for (const p of prints) {
    if (p.nullDates) units.add(NULL_PARTITION);
    if (p.first === undefined || p.last === undefined) continue;
    const months = monthsBetween(p.first, p.last);
    if (months.length > MAX_MONTHS) return undefined;
    for (const m of months) units.add(m);
  }
  return [...units];
}
