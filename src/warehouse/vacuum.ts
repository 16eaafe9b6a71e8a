/**
 * When DuckDB compacts the rows a night deleted. At every checkpoint DuckDB "vacuums": it rewrites adjacent row groups
 * whose remaining rows fit in fewer. A night deletes the days it lands again (the lookback, the rotation) and appends
 * them anew, and on a year's warehouse that made every night's checkpoint rewrite most of `raw.chats`' row groups
 * (every column compressed again): a large share of the night's CPU, growing with the history
 * (docs/lab/2026-11-sync-cpu.md, "Why a night costs more after a long backfill").
 *
 * So the warehouse's DuckDB opens with vacuuming off (`max_vacuum_tasks` 0: `duckdbOptions`), and a sync starts with
 * `vacuumIfDue`: once a raw table's deleted rows reach VACUUM_DEAD_SHARE of its rows, that sync's checkpoints vacuum.
 * Deleted rows stay invisible to every query meanwhile; they cost a little disk and scan time.
 */
import type { Session } from './session.js';

/** DuckDB's options for vacuuming off, on every instance the warehouse opens (both `duckdbOptions`). */
export const VACUUM_OFF = { max_vacuum_tasks: '0' } as const;

/** The share of a raw table's rows deleted and not compacted at which a sync vacuums the warehouse. */
export const VACUUM_DEAD_SHARE = 0.1;
/** Below this many deleted rows a table never asks for a vacuum (a small table's few rows cost nothing). */
const VACUUM_MIN_DEAD_ROWS = 2048;
/** DuckDB's own default of `max_vacuum_tasks`, for the checkpoint that vacuums. */
const DUCKDB_VACUUM_TASKS = 100;

export interface DeadRows {
  table: string;
  /** Rows a query sees. */
  rows: number;
  /** Rows deleted and still stored (DuckDB's estimated size counts them until a vacuum compacts them). */
  dead: number;
}

/** Each raw table's rows and deleted rows still stored. */
export async function deadRows(session: Session): Promise<DeadRows[]> {
  const tables = await session.all<{ name: string; stored: bigint | number }>(
    "SELECT table_name AS name, estimated_size AS stored FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'raw' ORDER BY 1",
  );
  const out: DeadRows[] = [];
  for (const { name, stored } of tables) {
    const rows = Number(await session.scalar(`SELECT count(*) FROM raw."${name.replaceAll('"', '""')}"`));
    out.push({ table: name, rows, dead: Math.max(0, Number(stored) - rows) });
  }
  return out;
}

/**
 * Decides whether this sync's checkpoints vacuum: on (DuckDB's default task count) when a raw table's deleted rows
 * have reached `share` of its rows (and VACUUM_MIN_DEAD_ROWS), off otherwise; returns the tables that asked for it.
 * DuckDB vacuums a table when a checkpoint writes it, that is when it changed since the last one: the tables with
 * deleted rows are the ones each night deletes from again, so that night's checkpoints (DuckDB's own past its WAL
 * threshold, the loader's, the one at the close) compact them. The setting lasts until the next sync decides again,
 * or the instance closes (a warehouse opens with it off).
 */
export async function vacuumIfDue(session: Session, share = VACUUM_DEAD_SHARE): Promise<DeadRows[]> {
  const due = (await deadRows(session)).filter((t) => t.dead >= VACUUM_MIN_DEAD_ROWS && t.dead >= share * t.rows);
  await session.run(`SET GLOBAL max_vacuum_tasks = ${due.length > 0 ? DUCKDB_VACUUM_TASKS : 0}`);
  return due;
}
