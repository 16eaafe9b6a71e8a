/**
 * What the soak compares (see soak.test.ts for the definition of "equal"): a warehouse file's content without its
 * run-specific columns, and an export folder's content (Parquet files read back as rows, JSON without timestamps,
 * other files as text).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { Database } from '../../src/warehouse/duckdb.js';

/** Schemas compared table by table, every column but the run-specific ones. */
const DATA_SCHEMAS = ['raw', 'staging', 'intermediate', 'snapshots', 'marts'];
/** Columns that say when or by which run a row was written: different in any two runs, whatever they hold. */
export const RUN_COLUMNS = ['_sync_run_id', '_extracted_at', '_ingested_at'];
/**
 * The ops tables whose content is the warehouse's state (what the next run reads), with the columns compared.
 * The ledger, the sync and model run records, the alerts sent and the rate budget record runs: not compared.
 * `ops.model_state`'s `input_key` and `dims_key` hash the versions of a model's inputs, which include the run columns
 * (the newest `_extracted_at`, the rows of views over raw tables): run-specific.
 */
export const OPS_STATE: Record<string, string[]> = {
  sync_state: ['team_id', 'stream', 'parent_id', 'range_from', 'range_to'],
  model_intervals: ['model', 'day'],
  model_state: ['model', 'kind', 'fingerprint', 'start_date'],
  rejected_rows: ['team_id', 'stream', 'parent_id', 'unit_key', 'endpoint', 'payload', 'issues'],
  schema_migrations: ['version', 'name'],
};

/** Every base table of the data schemas and the ops state, as sorted JSON rows without the run columns. */
export async function warehouseContent(path: string): Promise<Record<string, string[]>> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    const tables = await db.session.all<{ s: string; t: string }>(
      `select table_schema as s, table_name as t from information_schema.tables
       where table_type = 'BASE TABLE' and table_schema in (${DATA_SCHEMAS.map((s) => `'${s}'`).join(', ')})
       order by 1, 2`,
    );
    const out: Record<string, string[]> = {};
    const exclude = RUN_COLUMNS.map((c) => `'${c}'`).join(', ');
    for (const { s, t } of tables) {
      out[`${s}.${t}`] = await rowsOf(db, `select columns(c -> c not in (${exclude})) from ${s}.${t}`);
    }
    for (const [table, columns] of Object.entries(OPS_STATE)) {
      out[`ops.${table}`] = await rowsOf(db, `select ${columns.join(', ')} from ops.${table}`);
    }
    return out;
  } finally {
    db.close();
  }
}

async function rowsOf(db: Database, select: string): Promise<string[]> {
  const rows = await db.session.all<{ r: string }>(
    `select cast(to_json(t) as varchar) as r from (${select}) t order by 1`,
  );
  return rows.map((x) => x.r);
}

/**
 * Keys of the lake's manifests that depend on the run that wrote them: when it ran, its run ids, and a Parquet
 * file's size in bytes (its compression depends on the order the rows were landed in; `hash` covers the content).
 */
const MANIFEST_RUN_KEYS = new Set([
  'written_at',
  'exported_at',
  'generated_at',
  'updated_at',
  'finished_at',
  'started_at',
  'ended_at',
  'run_id',
  'bytes',
]);

/**
 * Every file below `dir` by relative path: a Parquet file as its sorted rows (the order rows were landed in differs
 * between runs), a JSON file parsed with the run keys removed, anything else as text.
 */
export async function folderContent(dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const db = await Database.open(':memory:');
  try {
    for (const file of walk(dir)) {
      const name = relative(dir, file);
      if (file.endsWith('.parquet')) {
        out[name] = await rowsOf(
          db,
          `select columns(c -> c not in (${RUN_COLUMNS.map((c) => `'${c}'`).join(', ')})) from read_parquet('${file.replaceAll("'", "''")}', hive_partitioning = false)`,
        );
      } else if (file.endsWith('.json')) {
        out[name] = withoutRunKeys(JSON.parse(readFileSync(file, 'utf8')));
      } else {
        out[name] = readFileSync(file, 'utf8');
      }
    }
    return out;
  } finally {
    db.close();
  }
}

function withoutRunKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRunKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !MANIFEST_RUN_KEYS.has(k))
        .map(([k, v]) => [k, withoutRunKeys(v)]),
    );
  }
  return value;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out.sort();
}

/** Where a child's run is killed: after the `n`th line of its JSON log matching `after` (or at `else`, if sooner). */
export interface KillPoint {
  stage: string;
  after: RegExp;
  n: number;
  /** A line that ends the stage: the kill happens there if the stage logged fewer than `n` matching lines. */
  orAt: RegExp;
}

export interface ChildRun {
  /** Null when the child was killed (SIGKILL). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The run id of its `run started` line, if it got that far. */
  runId?: string;
  /** The last line before the kill. */
  killedAfter?: string;
  ended: boolean;
}

/** Runs `node <bin> <args>` and SIGKILLs it at `kill` (never if undefined). */
export function runChild(bin: string, args: string[], env: NodeJS.ProcessEnv, kill?: KillPoint): Promise<ChildRun> {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const result: ChildRun = { code: null, signal: null, ended: false };
  let matched = 0;
  const lines = createInterface({ input: child.stderr });
  lines.on('line', (line) => {
    let msg = '';
    try {
      const parsed = JSON.parse(line) as { msg?: string; run_id?: string };
      msg = parsed.msg ?? '';
      if (msg === 'run started') result.runId = parsed.run_id;
      if (msg === 'run ended') result.ended = true;
    } catch {
      return;
    }
    if (!kill || result.killedAfter) return;
    if (kill.after.test(msg)) matched += 1;
    if (matched >= kill.n || kill.orAt.test(msg)) {
      result.killedAfter = msg;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      result.code = code;
      result.signal = signal;
      resolve(result);
    }),
  );
}

/** What differs between two contents: per key, the entries only on one side (a few of each), for a readable failure. */
export function differences(actual: Record<string, unknown>, expected: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(actual), ...Object.keys(expected)])].sort()) {
    const a = actual[key];
    const e = expected[key];
    if (JSON.stringify(a) === JSON.stringify(e)) continue;
    if (Array.isArray(a) && Array.isArray(e)) {
      const inE = new Set(e.map((x) => JSON.stringify(x)));
      const inA = new Set(a.map((x) => JSON.stringify(x)));
      const onlyA = a.filter((x) => !inE.has(JSON.stringify(x))).slice(0, 3);
      const onlyE = e.filter((x) => !inA.has(JSON.stringify(x))).slice(0, 3);
      out.push(
        `${key}: ${a.length} rows vs ${e.length}; only soaked ${JSON.stringify(onlyA)}; only clean ${JSON.stringify(onlyE)}`,
      );
    } else {
      out.push(`${key}: soaked ${JSON.stringify(a)?.slice(0, 600)} vs clean ${JSON.stringify(e)?.slice(0, 600)}`);
    }
  }
  return out;
}
