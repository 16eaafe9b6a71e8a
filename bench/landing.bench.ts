/**
 * What landing a row costs, by path, on an agency world's raw rows (issue 28: the cost a row of the backfill). The
 * world is landed once by bench/land-world.ts (the sync's row mapping and loader; default seed 5, 10 × 50 × 365,
 * `VWH_BENCH_LANDING_WORLD=SEED,PROJECTS,PROMPTS,DAYS`); the rows of its four largest raw tables (the answers, their
 * mentions and references, the prompts' daily metrics: 98.6 % of a backfill's rows) are then landed again into a new
 * warehouse file four ways, each the CPU (user + sys, all threads) of the landing and its closing checkpoint:
 *
 * - `loader_sync_bounds`: the product's Loader with the sync's transaction bounds (TRANSACTION_ROWS, TRANSACTION_MS),
 *   fed the rows as the row mapping gives them (JS values; units of one stream × prompt × 31 days, each new, so
 *   appended without a DELETE), paused at the sync's backlog (MAX_BACKLOG_ROWS) as a sync's fetching is;
 * - `loader_one_transaction`: the same Loader in one transaction (no durability bound): the appender path's least;
 * - `duckdb_sync_bounds`: DuckDB's own `INSERT … SELECT` from the landed file, in transactions of the loader's rows,
 *   a checkpoint past the loader's WAL limit as it does: what DuckDB alone costs at the sync's durability bound;
 * - `duckdb_one_transaction`: one `INSERT … SELECT` per table in one transaction, then a checkpoint: DuckDB's writer
 *   at its best (bench/sync-floor.ts's write).
 *
 * No HTTP, JSON or zod: those are the sync's too, and the floor's parse part (bench/sync-cpu). A project's units are
 * read from the landed file and kept as a V8-serialized file before any path runs; reading it back is taken out of
 * the measure (the main thread's CPU of the read, from /proc).
 *
 *   npm run bench -- landing      (VWH_BENCH_DIR keeps the landed world and its units between runs)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { DuckDBInstance } from '@duckdb/node-api';
import { MAX_BACKLOG_ROWS } from '../src/sync/unit-runner.js';
import type { RawRow, RunColumns, TableLoad } from '../src/warehouse/load-types.js';
import { Loader, TRANSACTION_MS, TRANSACTION_ROWS } from '../src/warehouse/loader.js';
import { Session } from '../src/warehouse/session.js';
import { WAL_CHECKPOINT_BYTES } from '../src/warehouse/wal-checkpoint.js';
import { Warehouse } from '../src/warehouse/warehouse.js';
import { landWorld, parseWorld, type WorldSpec } from './land-world.js';
import { type BenchResult, cpuMs, round2, threadCpuMs, writeResult } from './lib.js';
import { copyInSteps } from './sync-floor.js';

/** The raw tables replayed, and the stream whose units land each (the chats stream lands three in one unit). */
export const LANDING_TABLES: Record<string, 'chats' | 'metrics'> = {
  chats: 'chats',
  chat_mentions: 'chats',
  chat_references: 'chats',
  prompt_metrics_daily: 'metrics',
};
const RUN_COLUMNS = new Set(['team_id', '_sync_run_id', '_extracted_at']);
/** The sync's chunk of a daily stream: a unit is a prompt's 31 days. */
const CHUNK_DAYS = 31;

type LandingPath = 'loader_sync_bounds' | 'loader_one_transaction' | 'duckdb_sync_bounds' | 'duckdb_one_transaction';
export interface PathFigures {
  rows: number;
  cpu_ms: number;
  us_per_row: number;
  /** Transactions the landing committed. */
  transactions: number;
  /** The loader's CPU a row while each project's units were fed (a project's tenth of the rows at 10 ×), in order. */
  us_per_row_each?: number[];
}

/**
 * Writes each project's units (the landed rows as the row mapping gives them: dates and timestamps as text, BIGINT as
 * numbers, `_extra` as an object) to `dir/units-<n>.bin`; returns the files and the rows.
 */
export async function writeUnits(landed: string, dir: string): Promise<{ files: string[]; rows: number }> {
  const instance = await DuckDBInstance.create(landed, { access_mode: 'READ_ONLY', threads: '1' });
  const connection = await instance.connect();
  const all = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson() as RawRow[];
  try {
    // Each table's columns as the row mapping gives their values, read once for all projects.
    const selects: Record<string, string> = {};
    for (const table of Object.keys(LANDING_TABLES)) {
      const columns = await all(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'raw' AND table_name = '${table}' ORDER BY ordinal_position`,
      );
      selects[table] = columns
        .filter((c) => !RUN_COLUMNS.has(String(c.column_name)))
        .map(({ column_name: name, data_type: type }) => {
          const q = `"${name}"`;
          if (type === 'DATE') return `CAST(${q} AS VARCHAR) AS ${q}`;
          if (type === 'TIMESTAMP') return `strftime(${q}, '%Y-%m-%dT%H:%M:%S.%gZ') AS ${q}`;
          if (type === 'BIGINT') return `CAST(${q} AS DOUBLE) AS ${q}`;
          if (type === 'JSON') return `CAST(${q} AS VARCHAR) AS ${q}`;
          return q;
        })
        .join(', ');
    }
    const projects = (await all('SELECT DISTINCT project_id FROM raw.chats ORDER BY 1')).map((r) =>
      String(r.project_id),
    );
    const files: string[] = [];
    let rows = 0;
    for (const [n, project] of projects.entries()) {
      const units = new Map<string, Record<string, RawRow[]>>();
      for (const [table, stream] of Object.entries(LANDING_TABLES)) {
        const day = table === 'prompt_metrics_daily' ? 'date' : 'chat_date';
        const found = await all(
          `SELECT ${selects[table]}, (${day} - DATE '2000-01-01') // ${CHUNK_DAYS} AS __chunk FROM raw."${table}" ` +
            `WHERE project_id = '${project}' ORDER BY prompt_id, ${day}`,
        );
        for (const row of found) {
          const key = `${stream}|${row.prompt_id}|${String(row.__chunk).padStart(6, '0')}`;
          delete row.__chunk;
          if (typeof row._extra === 'string') row._extra = JSON.parse(row._extra);
          const unit = units.get(key) ?? {};
          units.set(key, unit);
          const tableRows = unit[table] ?? [];
          unit[table] = tableRows;
          tableRows.push(row);
        }
        rows += found.length;
      }
      const ordered = [...units.keys()].sort().map((k) => units.get(k) as Record<string, RawRow[]>);
      const file = join(dir, `units-${n}.bin`);
      writeFileSync(file, serialize(ordered));
      files.push(file);
    }
    return { files, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * A new warehouse file at `file` and a session on it (the raw tables created by the migrations). DuckDB checkpoints
 * by itself only past the loader's WAL limit, as in a sync: there the rate budget's saves (a connection of their own)
 * keep DuckDB's checkpoint at a commit from running nearly always (a 10 × 50 × 365 backfill's WAL, sampled every
 * 0.2 s on 28 Nov: four of DuckDB's own in its first three minutes, at 30-44 MB, then only the loader's at ~290 MB),
 * where here, with no other connection, DuckDB would checkpoint at every commit past 16 MB.
 */
async function freshWarehouse(file: string): Promise<{ warehouse: Warehouse; session: Session }> {
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
  const warehouse = await Warehouse.open(file);
  const session = await Session.create(await warehouse.database.connect());
  await session.run(`SET checkpoint_threshold = '${WAL_CHECKPOINT_BYTES / 2 ** 20}MiB'`);
  return { warehouse, session };
}

/** Lands the units of `files` through the product's Loader into the warehouse at `file` (see the module's comment). */
export async function landThroughLoader(
  files: readonly string[],
  file: string,
  bounds: { rows: number; ms: number },
): Promise<PathFigures> {
  const { warehouse, session } = await freshWarehouse(file);
  const loader = new Loader(session, 0, bounds, { file: `${file}.wal`, limitBytes: WAL_CHECKPOINT_BYTES });
  const run: RunColumns = { team_id: 'default', _sync_run_id: 'landing-bench', _extracted_at: new Date() };
  try {
    let done = false;
    loader.expectUnits(() => !done);
    const start = cpuMs();
    let excluded = 0;
    let rows = 0;
    const landed: Array<Promise<Record<string, number>>> = [];
    const each: number[] = [];
    for (const unitsFile of files) {
      const before = threadCpuMs().main ?? 0;
      const units = deserialize(readFileSync(unitsFile)) as Array<Record<string, RawRow[]>>;
      const read = (threadCpuMs().main ?? 0) - before;
      excluded += read;
      const fileStart = cpuMs();
      const fileRows = rows;
      for (const unit of units) {
        // The sync's pause: fetching waits while the loader is this far behind.
        await loader.room(MAX_BACKLOG_ROWS);
        const loads: TableLoad[] = Object.entries(unit).map(([table, unitRows]) => ({
          table: `raw.${table}`,
          rows: unitRows,
        }));
        rows += loads.reduce((n, l) => n + l.rows.length, 0);
        landed.push(loader.loadUnit(loads, run));
      }
      each.push(round2(((cpuMs() - fileStart) * 1000) / Math.max(1, rows - fileRows)));
    }
    done = true;
    loader.nudge();
    await Promise.all(landed);
    await session.run('CHECKPOINT');
    const cpu = cpuMs() - start - excluded;
    return {
      rows,
      cpu_ms: Math.round(cpu),
      us_per_row: round2((cpu * 1000) / rows),
      transactions: loader.transactionsCommitted,
      us_per_row_each: each,
    };
  } finally {
    session.close();
    warehouse.close();
  }
}

/**
 * Lands the same tables with DuckDB's own `INSERT … SELECT` from the landed file: in `steps` transactions of equal
 * shares of every table (rowid ranges), checkpointing past the loader's WAL limit, then a checkpoint.
 */
export async function landThroughDuckDB(landed: string, file: string, steps: number): Promise<PathFigures> {
  const { warehouse, session } = await freshWarehouse(file);
  try {
    await session.run(`ATTACH '${landed.replaceAll("'", "''")}' AS landed (READ_ONLY)`);
    const counts: Record<string, number> = {};
    for (const table of Object.keys(LANDING_TABLES))
      counts[table] = Number(await session.scalar(`SELECT count(*) FROM landed.raw."${table}"`));
    const target = `"${await session.scalar<string>('SELECT current_database()')}"`;
    const cpu = await copyInSteps(session, counts, steps, {
      source: 'landed',
      target,
      wal: `${file}.wal`,
      walLimit: WAL_CHECKPOINT_BYTES,
    });
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);
    await session.run('DETACH landed');
    return { rows, cpu_ms: Math.round(cpu), us_per_row: round2((cpu * 1000) / rows), transactions: steps };
  } finally {
    session.close();
    warehouse.close();
  }
}

export async function main(): Promise<BenchResult> {
  const world: WorldSpec = parseWorld(process.env.VWH_BENCH_LANDING_WORLD ?? '5,10,50,365');
  const label = `${world.projects}x${world.prompts}x${world.days}`;
  const keep = process.env.VWH_BENCH_DIR;
  const dir = keep ? join(keep, `landing-${world.seed}-${label}`) : mkdtempSync(join(tmpdir(), 'vwh-landing-'));
  mkdirSync(dir, { recursive: true });
  try {
    const landed = join(dir, 'landed.duckdb');
    if (!existsSync(landed)) await landWorld({ world, out: landed });
    const unitsDir = join(dir, 'units');
    mkdirSync(unitsDir, { recursive: true });
    const { files, rows } = await writeUnits(landed, unitsDir);
    const target = join(dir, 'target.duckdb');
    const figures: Partial<Record<LandingPath, PathFigures>> = {};
    const load = [Number(loadavg()[0]?.toFixed(2))];
    figures.loader_sync_bounds = await landThroughLoader(files, target, { rows: TRANSACTION_ROWS, ms: TRANSACTION_MS });
    // A day and any number of rows: one transaction (a finite wait: setTimeout takes at most 2^31 - 1 ms).
    figures.loader_one_transaction = await landThroughLoader(files, target, {
      rows: Number.MAX_SAFE_INTEGER,
      ms: 86_400_000,
    });
    // DuckDB at the loader's transactions: as many as the loader committed (its rows a transaction, on average).
    figures.duckdb_sync_bounds = await landThroughDuckDB(landed, target, figures.loader_sync_bounds.transactions);
    figures.duckdb_one_transaction = await landThroughDuckDB(landed, target, 1);
    load.push(Number(loadavg()[0]?.toFixed(2)));
    rmSync(target, { force: true });
    rmSync(`${target}.wal`, { force: true });
    if (!keep) rmSync(unitsDir, { recursive: true, force: true });
    for (const [path, f] of Object.entries(figures))
      if (f.rows !== rows) throw new Error(`landing: ${path} landed ${f.rows} rows, the world has ${rows}`);

    const floor = figures.duckdb_one_transaction as PathFigures;
    const over = (path: LandingPath) => round2((figures[path] as PathFigures).us_per_row / floor.us_per_row);
    const result: BenchResult = {
      name: 'landing',
      description: `CPU (user + sys, all threads) a row of landing the ${rows.toLocaleString('en-US')} rows of raw.chats, chat_mentions, chat_references and prompt_metrics_daily of a landed ${label} world (seed ${world.seed}) into a new warehouse file, four ways: the product's Loader (JS row values, appender data chunks) at the sync's transaction bounds (${TRANSACTION_ROWS.toLocaleString('en-US')} rows or ${TRANSACTION_MS / 1000} s) and in one transaction; DuckDB's own INSERT … SELECT from the landed file in as many transactions as the loader committed and in one (the floor's write); each with its closing checkpoint; one DuckDB thread; load ${load.join(' → ')}. \`npm run bench -- landing\`.`,
      ratios: {
        loader_sync_bounds_over_duckdb_one_transaction: over('loader_sync_bounds'),
        loader_one_transaction_over_duckdb_one_transaction: over('loader_one_transaction'),
        duckdb_sync_bounds_over_duckdb_one_transaction: over('duckdb_sync_bounds'),
      },
      figures: {
        rows,
        rows_per_loader_transaction: Math.round(rows / Math.max(1, figures.loader_sync_bounds.transactions)),
        ...Object.fromEntries(
          Object.entries(figures).flatMap(([path, f]) => [
            [`${path}_cpu_ms`, f.cpu_ms],
            [`${path}_us_per_row`, f.us_per_row],
          ]),
        ),
      },
      details: { world, figures, load_before: load[0], load_after: load[1] },
    };
    writeResult(result);
    return result;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}
