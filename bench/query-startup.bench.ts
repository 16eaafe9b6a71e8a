/**
 * What an analyst's one query costs: `vwh query "select 1"` and `vwh report weekly_visibility` on the embedded demo's
 * published copy, each against its floor measured in the same run, interleaved round by round: a bare Node process
 * that loads DuckDB's binding (`require`, its cheapest way; `import`, what an ES module writes, is measured too),
 * opens the same file read-only and runs the same SQL (for the report, its SQL with no parameters, every row read).
 * CPU is user + sys of the child, DuckDB's threads included (process.cpuUsage() read at its `exit` by a preload
 * script, the same one for every child). Medians of ROUNDS.
 *
 * The published copy: `VWH_BENCH_QUERY_DB` (a .duckdb file), else one `vwh run` on the embedded demo world in a
 * temporary folder, kept in os.tmpdir()/vwh-bench-query-startup for the next run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchResult, round2, writeResult } from './lib.js';

const ROUNDS = Number(process.env.VWH_BENCH_QUERY_ROUNDS ?? 7);
const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'src', 'cli', 'bin.js');
const REPORT_SQL = join(here, '..', '..', 'sql', 'reports', 'weekly_visibility.sql');
const API = createRequire(import.meta.url).resolve('@duckdb/node-api');

/** The preload every child runs: its CPU so far, at exit, into the file VWH_BENCH_CPU_OUT names. */
const PRELOAD = `process.on('exit', () => {
  const u = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.VWH_BENCH_CPU_OUT, String((u.user + u.system) / 1000));
});\n`;

/** The floor: load the binding, open read-only, run the SQL, read every row. argv: how, file, sql file or text. */
const FLOOR = `const how = process.argv[2];
const api = how === 'import' ? await import(${JSON.stringify(API)}) : (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(API)});
const { readFileSync, existsSync } = await import('node:fs');
const sql = existsSync(process.argv[4]) ? readFileSync(process.argv[4], 'utf8').replace(/^\\/\\*[\\s\\S]*?\\*\\//, '') : process.argv[4];
const instance = await api.DuckDBInstance.create(process.argv[3], { access_mode: 'READ_ONLY' });
const connection = await instance.connect();
const params = sql.includes('$project') ? { project: null, from: null, to: null } : undefined;
const reader = await connection.runAndReadAll(sql, params);
process.stdout.write(reader.getRowsJS().length + ' rows\\n');
connection.closeSync();
instance.closeSync();
`;

function publishedCopy(): string {
  const given = process.env.VWH_BENCH_QUERY_DB;
  if (given) return given;
  const dir = join(tmpdir(), 'vwh-bench-query-startup');
  const copy = join(dir, 'data', 'published', 'warehouse.duckdb');
  if (existsSync(copy)) return copy;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const run = spawnSync(process.execPath, [BIN, 'run'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`vwh run on the embedded demo exited ${run.status}`);
  return copy;
}

/** CPU ms of one child run of `args` (node args), its stdout discarded; throws when it fails. */
function childCpuMs(args: string[], cwd: string, work: string): number {
  const out = join(work, 'cpu.txt');
  rmSync(out, { force: true });
  const run = spawnSync(process.execPath, ['--require', join(work, 'preload.cjs'), ...args], {
    cwd,
    env: { ...process.env, VWH_BENCH_CPU_OUT: out },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return Number(readFileSync(out, 'utf8'));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export async function main(): Promise<BenchResult> {
  const copy = publishedCopy();
  const work = join(tmpdir(), `vwh-bench-query-startup-${process.pid}`);
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'preload.cjs'), PRELOAD);
  writeFileSync(join(work, 'floor.mjs'), FLOOR);
  // no vwh.config.json in the folder the commands run in: the demo's defaults, as on a fresh machine
  const cwd = work;
  const floor = join(work, 'floor.mjs');
  const runs: Record<string, string[]> = {
    floor_query: [floor, 'require', copy, 'select 1'],
    floor_query_import: [floor, 'import', copy, 'select 1'],
    query: [BIN, 'query', '--db', copy, 'select 1'],
    floor_report: [floor, 'require', copy, REPORT_SQL],
    report: [BIN, 'report', 'weekly_visibility', '--db', copy],
  };
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
  const load = loadavg()[0] ?? 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, args] of Object.entries(runs)) cpu[name]?.push(childCpuMs(args, cwd, work));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const med = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round2(median(v))])) as Record<string, number>;
  const queryRatio = round2((med.query ?? 0) / (med.floor_query ?? 1));
  const reportRatio = round2((med.report ?? 0) / (med.floor_report ?? 1));
  const result: BenchResult = {
    name: 'query-startup',
    description:
      `CPU (user + sys, ms, median of ${ROUNDS}) of one child process each: vwh query "select 1" and vwh report ` +
      'weekly_visibility (CSV on stdout) on the embedded demo published copy, against a bare Node process loading ' +
      "DuckDB's binding, opening the same file read-only and running the same SQL; interleaved. " +
      `${cpus().length} cores, load ${load.toFixed(1)} at start.`,
    ratios: {
      query_over_floor: queryRatio,
      report_over_floor: reportRatio,
      floor_import_over_require: round2((med.floor_query_import ?? 0) / (med.floor_query ?? 1)),
    },
    figures: { ...Object.fromEntries(Object.entries(med).map(([k, v]) => [`${k}_cpu_ms`, v])), rounds: ROUNDS },
    targets: {
      query: { target: 'vwh query <= 1.2 x its floor', met: queryRatio <= 1.2 },
      report: { target: 'vwh report <= 1.5 x its floor', met: reportRatio <= 1.5 },
    },
    details: { cpu_ms: cpu },
  };
  writeResult(result);
  return result;
}
