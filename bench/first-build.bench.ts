/**
 * A small team's first models build: the shipped dbt-like-models from scratch on landed worlds (bench/land-world.ts:
 * the sync's row mapping and loader, no HTTP), as shipped (`batch_rows` on the batched models) against the same
 * project with `batch_rows` set to 0 (batches of `batch_days` days, however small the inputs), in turn, in the same
 * process and run. Per world: the medians of CPU (user + sys of this process: DuckDB's threads included) and wall,
 * the batches written (the time-range models' day ranges), and the rows of every model's table, which must be equal.
 *
 * The worlds: `VWH_BENCH_FIRST_SIZES` (default `demo=42,3,12,90;mid=5,3,20,180`, label=seed,projects,prompts,days).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../src/core/clock.js';
import { addDays, dayToMs } from '../src/core/days.js';
import { silentLogger } from '../src/core/log.js';
import { loadProject, shippedModelsDir } from '../src/models/project.js';
import { type RunResults, runProject } from '../src/models/runner.js';
import { qualified } from '../src/models/sql-text.js';
import type { Project } from '../src/models/types.js';
import { Database } from '../src/warehouse/duckdb.js';
import { BENCH_TODAY, landWorld, parseSizes } from './land-world.js';
import { type BenchResult, writeResult } from './lib.js';

const ROUNDS = 3;
const THREADS = 2;

interface Build {
  cpuMs: number;
  wallMs: number;
  batches: number;
  rows: Record<string, number>;
}

/** One build from scratch of a copy of the landed warehouse. */
async function buildOnce(landed: string, dir: string, project: Project): Promise<Build> {
  const path = join(dir, 'build.duckdb');
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
  copyFileSync(landed, path);
  const db = await Database.open(path);
  try {
    const clock = new ManualClock(dayToMs(addDays(BENCH_TODAY, 1)) + 3_600_000);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result: RunResults = await runProject(db, project, {
      command: 'build',
      clock,
      logger: silentLogger,
      threads: THREADS,
    });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const bad = result.results.filter((r) => r.status !== 'success');
    if (bad.length > 0)
      throw new Error(`first-build: ${bad.map((r) => `${r.id} ${r.status}: ${r.message}`).join('; ')}`);
    const batches = result.results.reduce((n, r) => n + (r.intervals ? r.intervals.split(', ').length : 0), 0);
    const rows: Record<string, number> = {};
    for (const model of project.models.values()) {
      if (!['table', 'incremental_by_time_range', 'incremental_by_unique_key'].includes(model.config.kind)) continue;
      rows[model.id] = Number(await db.session.scalar(`SELECT count(*) FROM ${qualified(model.schema, model.name)}`));
    }
    return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, batches, rows };
  } finally {
    db.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function main(): Promise<BenchResult> {
  const sizes = parseSizes(process.env.VWH_BENCH_FIRST_SIZES ?? 'demo=42,3,12,90;mid=5,3,20,180');
  const shipped = await loadProject(shippedModelsDir());
  // The same project, batches of batch_days alone (batch_rows is not in the fingerprint: nothing else differs).
  const plain = await loadProject(shippedModelsDir());
  for (const model of plain.models.values()) model.config.batchRows = 0;
  const ratios: Record<string, number> = {};
  const figures: Record<string, number | string> = { load_average_at_start: loadavg()[0]?.toFixed(2) ?? '' };
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'vwh-bench-first-'));
    try {
      const landed = join(dir, 'landed.duckdb');
      const landing = await landWorld({ world: size, out: landed });
      const answers = Number(
        await (async () => {
          const db = await Database.open(landed);
          try {
            return await db.session.scalar('SELECT count(*) FROM raw.chats');
          } finally {
            db.close();
          }
        })(),
      );
      process.stderr.write(`first-build: ${size.label}: ${answers} answers landed in ${landing.wall_ms} ms\n`);
      const runs: { shipped: Build[]; plain: Build[] } = { shipped: [], plain: [] };
      for (let k = 0; k < ROUNDS; k++) {
        runs.shipped.push(await buildOnce(landed, dir, shipped));
        runs.plain.push(await buildOnce(landed, dir, plain));
      }
      const [a, b] = [runs.shipped[0] as Build, runs.plain[0] as Build];
      const differing = Object.keys(b.rows).filter((id) => a.rows[id] !== b.rows[id]);
      if (differing.length > 0) throw new Error(`first-build: rows differ in ${differing.join(', ')}`);
      const cpu = (builds: Build[]) => median(builds.map((r) => r.cpuMs));
      const wall = (builds: Build[]) => median(builds.map((r) => r.wallMs));
      const l = size.label;
      ratios[`${l}_cpu_shipped_over_batch_days_only`] = round(cpu(runs.shipped) / cpu(runs.plain));
      ratios[`${l}_wall_shipped_over_batch_days_only`] = round(wall(runs.shipped) / wall(runs.plain));
      Object.assign(figures, {
        [`${l}_world`]: `seed ${size.seed}, ${size.projects} × ${size.prompts} × ${size.days}`,
        [`${l}_answers`]: answers,
        [`${l}_cpu_ms_shipped`]: Math.round(cpu(runs.shipped)),
        [`${l}_cpu_ms_batch_days_only`]: Math.round(cpu(runs.plain)),
        [`${l}_wall_ms_shipped`]: Math.round(wall(runs.shipped)),
        [`${l}_wall_ms_batch_days_only`]: Math.round(wall(runs.plain)),
        [`${l}_batches_shipped`]: a.batches,
        [`${l}_batches_batch_days_only`]: b.batches,
        [`${l}_cpu_ms_each_shipped`]: runs.shipped.map((r) => Math.round(r.cpuMs)).join(' '),
        [`${l}_cpu_ms_each_batch_days_only`]: runs.plain.map((r) => Math.round(r.cpuMs)).join(' '),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  figures.load_average_at_end = loadavg()[0]?.toFixed(2) ?? '';
  const result: BenchResult = {
    name: 'first-build',
    description:
      `A first models build from scratch of landed worlds (${sizes.map((s) => `${s.label}: seed ${s.seed}, ${s.projects} × ${s.prompts} × ${s.days}`).join('; ')}), ` +
      `the shipped models (batch_rows) against the same project with batch_rows 0 (batches of batch_days alone), ` +
      `${ROUNDS} builds each in turn, ${THREADS} DuckDB threads, medians; every model's rows equal between the two. ` +
      `${cpus().length} CPU(s), ${cpus()[0]?.model ?? ''}. \`npm run bench -- first-build\`.`,
    ratios,
    figures,
  };
  writeResult(result);
  return result;
}
