/**
 * Exports: Parquet and CSV throughput on a large synthetic mart as a ratio to DuckDB's bare COPY of the same table
 * in the same run (target >= 0.8), the Arrow export's peak RSS as the table grows 10x (each size in a process of its
 * own; target: flat, <= 1.5x), and the HTML report's render time on a 10-project x 52-week reference world.
 * Each timing is the best of five runs, the bare COPY and the export interleaved, so that a burst of load on a
 * shared machine weighs on both alike; the load average is recorded beside the figures, and the Parquet ratio also
 * as the median of each round's pair and as a ratio of CPU time. With VWH_BENCH_EXPORT_WAREHOUSE set to a warehouse
 * with its marts built (an agency's: the world bench/models-real.bench.ts syncs into VWH_BENCH_WAREHOUSE, then
 * `vwh models build --db` on a copy of it), the lake is measured on its largest marts too.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/core/log.js';
import { exportParquetLake, writeHtmlReport, writeReport } from '../src/export/index.js';
import { runNightly } from '../src/ops/nightly.js';
import { Database } from '../src/warehouse/duckdb.js';
import { type BenchResult, timed, writeResult } from './lib.js';

const ROWS = Number(process.env.VWH_BENCH_EXPORT_ROWS ?? 2_000_000);
const ARROW_SMALL = Number(process.env.VWH_BENCH_ARROW_ROWS ?? 300_000);
const HTML_DAYS = Number(process.env.VWH_BENCH_HTML_DAYS ?? 364);

/** A mart shaped like brand_visibility_daily: 10 projects x 365 days x brands x 4 providers. */
async function buildMart(path: string, rows: number): Promise<void> {
  const db = await Database.open(path);
  try {
    await db.session.run(`
      create schema if not exists marts; create schema if not exists raw;
      create or replace table raw.projects as
        select 'team-bench' as team_id, 'project-' || i as id, 'Project ' || i as name, now() as _extracted_at from range(10) r(i);
      create or replace table marts.big_facts as
        select 'team-bench' as team_id, 'project-' || (i % 10) as project_id,
               'brand-' || (i // 10 % 13) as brand_id, 'Brand ' || (i // 10 % 13) as brand_name,
               (['chatgpt', 'perplexity', 'gemini', 'all'])[i // 130 % 4 + 1] as provider,
               date '2025-01-01' + (i // 520 % 365)::int as date,
               (i % 97 + 1)::bigint as responses, (i % 41)::bigint as mentions,
               round(100.0 * (i % 41) / (i % 97 + 1), 2) as visibility_pct,
               timestamp '2025-01-01' + to_seconds(i) as _extracted_at
          from range(${rows}) r(i)`);
  } finally {
    db.close();
  }
}

function arrowChild(db: string, out: string): { maxRssMb: number; ms: number } {
  const entry = fileURLToPath(new URL('../src/export/index.js', import.meta.url));
  const script = `const m = await import(${JSON.stringify(entry)}); const t = Date.now();
    await m.exportArrow({ db: ${JSON.stringify(db)}, outDir: ${JSON.stringify(out)}, tables: ['big_facts'] });
    process.stdout.write(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, ms: Date.now() - t }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`arrow child failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { maxRssMb: number; ms: number };
}

/** A log sink that keeps the lake export's own timings (hash, write, publish) of each run. */
function stepLog(phases: Record<string, number[]>): Writable {
  return new Writable({
    write(line: Buffer, _encoding, done) {
      const entry = JSON.parse(String(line)) as { msg: string; hash_ms?: number; write_ms?: number; ms?: number };
      if (entry.msg === 'export table staged') {
        phases.hash_ms?.push(entry.hash_ms ?? 0);
        phases.write_ms?.push(entry.write_ms ?? 0);
      } else if (entry.msg === 'export published') phases.publish_ms?.push(entry.ms ?? 0);
      done();
    },
  });
}

/** A run's wall and CPU time (the process's, DuckDB's threads included: less sensitive to other work than wall). */
interface Run {
  ms: number;
  cpuMs: number;
}

async function measured(fn: () => Promise<unknown>): Promise<Run> {
  const cpu = process.cpuUsage();
  const { ms } = await timed(fn);
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** The bare COPY statements, each on a fresh read-only connection as the exports open theirs. */
async function bareCopy(db: string, sql: string): Promise<Run> {
  const bare = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    return await measured(() => bare.session.run(sql));
  } finally {
    bare.close();
  }
}

/** Interleaved rounds of the Parquet and CSV measurements (a burst of load weighs on each variant alike). */
const ROUNDS = 5;

/** A synced warehouse (e.g. an agency's, 10 x 50 x 365) whose largest marts are measured too (optional). */
const REAL = process.env.VWH_BENCH_EXPORT_WAREHOUSE;
const REAL_MARTS = ['prompt_performance_daily', 'source_domains_daily', 'share_of_voice_daily'];

interface RealMart {
  rows: number;
  /** Partition files the lake wrote. */
  files: number;
  bare_ms: number;
  bare_partitioned_ms: number;
  lake_ms: number;
}

/**
 * The lake against bare COPY on real marts (the product's own tables, as the models build them): three interleaved
 * rounds per mart, best of each. Their partitions are small (10 projects x 13 months of a few thousand rows), so
 * the cost DuckDB pays per partition file weighs more than on the synthetic 2M-row mart.
 */
async function realMarts(db: string, dir: string): Promise<Record<string, RealMart>> {
  const out: Record<string, RealMart> = {};
  for (const table of REAL_MARTS) {
    const runs = { bare: [] as number[], partitioned: [] as number[], lake: [] as number[] };
    let summary = { rows: 0, files: 0 };
    for (let i = 0; i < 3; i++) {
      runs.bare.push(
        (
          await bareCopy(
            db,
            `COPY marts.${table} TO '${join(dir, `real-${i}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`,
          )
        ).ms,
      );
      runs.partitioned.push(
        (
          await bareCopy(
            db,
            `COPY (select *, strftime(date, '%Y-%m') as month from marts.${table}) TO '${join(dir, `real-part-${i}`)}'
               (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (team_id, project_id, month))`,
          )
        ).ms,
      );
      const lake = await timed(() => exportParquetLake({ db, outDir: join(dir, `real-lake-${i}`), tables: [table] }));
      runs.lake.push(lake.ms);
      summary = { rows: lake.value.rows, files: lake.value.files };
      rmSync(join(dir, `real-lake-${i}`), { recursive: true, force: true });
      rmSync(join(dir, `real-part-${i}`), { recursive: true, force: true });
    }
    out[table] = {
      ...summary,
      bare_ms: round(Math.min(...runs.bare)),
      bare_partitioned_ms: round(Math.min(...runs.partitioned)),
      lake_ms: round(Math.min(...runs.lake)),
    };
  }
  return out;
}

export async function main(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-bench-export-'));
  const loadBefore = loadavg();
  try {
    const db = join(dir, 'w.duckdb');
    await buildMart(db, ROWS);
    const reports = join(dir, 'reports');
    mkdirSync(reports);
    writeFileSync(
      join(reports, 'big.sql'),
      '/* @report\ntitle: Big\ndescription: the whole mart\ncolumns: {}\n*/\nselect * from marts.big_facts',
    );

    // Parquet: bare COPY of the table to one zstd file; DuckDB's own partitioned COPY of it into the lake's layout
    // and a single-file COPY in row groups of the lake's size (16,384 rows here; both for where the time goes); the
    // lake export of the same table (fresh lake each time). CSV: bare COPY, report.
    const phases: Record<string, number[]> = { hash_ms: [], write_ms: [], publish_ms: [] };
    const times = {
      bareParquet: [] as Run[],
      barePartitioned: [] as Run[],
      bareSmallGroups: [] as Run[],
      lake: [] as Run[],
    };
    const csvTimes = { bare: [] as Run[], report: [] as Run[] };
    for (let i = 0; i < ROUNDS; i++) {
      times.bareParquet.push(
        await bareCopy(
          db,
          `COPY marts.big_facts TO '${join(dir, `bare-${i}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`,
        ),
      );
      times.bareSmallGroups.push(
        await bareCopy(
          db,
          `COPY marts.big_facts TO '${join(dir, `bare-rg-${i}.parquet`)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 16384)`,
        ),
      );
      times.barePartitioned.push(
        await bareCopy(
          db,
          `COPY (select *, strftime(date, '%Y-%m') as month from marts.big_facts) TO '${join(dir, `bare-part-${i}`)}'
             (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (team_id, project_id, month))`,
        ),
      );
      const steps = createLogger({ stream: stepLog(phases), format: 'json', level: 'info' });
      times.lake.push(
        await measured(() =>
          exportParquetLake({ db, outDir: join(dir, `lake-${i}`), tables: ['big_facts'], log: steps }),
        ),
      );
      csvTimes.bare.push(await bareCopy(db, `COPY marts.big_facts TO '${join(dir, `bare-${i}.csv`)}' (HEADER)`));
      csvTimes.report.push(
        await measured(() =>
          writeReport({ db, name: 'big', format: 'csv', out: join(dir, `big-${i}.csv`), reportsDir: reports }),
        ),
      );
    }
    const best = (runs: Run[]) => ({ ms: Math.min(...runs.map((r) => r.ms)) });
    const bareParquet = best(times.bareParquet);
    const barePartitioned = best(times.barePartitioned);
    const bareSmallGroups = best(times.bareSmallGroups);
    const lake = best(times.lake);
    const bareCsv = best(csvTimes.bare);
    const csv = best(csvTimes.report);
    // the same ratio from each round's pair and from CPU time, to show how far the load moved it
    const roundRatios = times.lake.map((l, i) => (times.bareParquet[i]?.ms ?? 0) / l.ms);
    const cpuRatio = median(times.bareParquet.map((r) => r.cpuMs)) / median(times.lake.map((r) => r.cpuMs));

    // Arrow: peak RSS of a process exporting N rows, then one exporting 10 N rows.
    const small = join(dir, 'small.duckdb');
    await buildMart(small, ARROW_SMALL);
    const large = join(dir, 'large.duckdb');
    await buildMart(large, ARROW_SMALL * 10);
    const arrowSmall = arrowChild(small, join(dir, 'arrow-small'));
    const arrowLarge = arrowChild(large, join(dir, 'arrow-large'));

    // HTML: the report of a 10-project x 52-week reference world, synced and modelled.
    const world = join(dir, 'world.duckdb');
    const sink = new PassThrough();
    sink.resume();
    const config = join(dir, 'vwh.config.json');
    writeFileSync(config, '{}\n');
    await runNightly(
      {
        db: world,
        config,
        embedded: true,
        logFormat: 'json',
        rateWindowMs: 100,
        world: { seed: 3, projects: 10, prompts: 3, historyDays: HTML_DAYS },
      },
      { out: sink, summary: false },
    );
    const html = await timed(() => writeHtmlReport({ db: world, out: join(dir, 'report.html') }));
    // kept outside the repository for a person to look at (docs/exports.md: screenshot it)
    if (process.env.VWH_BENCH_KEEP_HTML) copyFileSync(join(dir, 'report.html'), process.env.VWH_BENCH_KEEP_HTML);
    const real = REAL ? await realMarts(REAL, dir) : undefined;
    const realSum = (key: keyof RealMart) => Object.values(real ?? {}).reduce((sum, m) => sum + m[key], 0);
    const loadAfter = loadavg();

    const parquetRatio = bareParquet.ms / lake.ms;
    const csvRatio = bareCsv.ms / csv.ms;
    const rssRatio = arrowLarge.maxRssMb / arrowSmall.maxRssMb;
    const result: BenchResult = {
      name: 'export',
      description:
        `Parquet lake and CSV report of a ${ROWS.toLocaleString('en-US')}-row mart against DuckDB's bare COPY of the ` +
        `same table in the same run; Arrow export peak RSS at ${ARROW_SMALL.toLocaleString('en-US')} and 10x rows ` +
        `(separate processes); HTML report of a 10-project x ${HTML_DAYS}-day world` +
        `${REAL ? `; the lake against bare COPY on the largest marts of a synced warehouse (${REAL_MARTS.join(', ')})` : ''}. ` +
        `${cpus().length} cores.`,
      ratios: {
        parquet_throughput_vs_bare_copy: round(parquetRatio),
        parquet_throughput_vs_bare_partitioned_copy: round(barePartitioned.ms / lake.ms),
        parquet_throughput_vs_bare_copy_median_of_rounds: round(median(roundRatios)),
        parquet_cpu_vs_bare_copy: round(cpuRatio),
        csv_throughput_vs_bare_copy: round(csvRatio),
        arrow_peak_rss_10x_over_1x: round(rssRatio),
        ...(real
          ? {
              real_marts_parquet_throughput_vs_bare_copy: round(realSum('bare_ms') / realSum('lake_ms')),
              real_marts_parquet_throughput_vs_bare_partitioned_copy: round(
                realSum('bare_partitioned_ms') / realSum('lake_ms'),
              ),
            }
          : {}),
      },
      figures: {
        rows: ROWS,
        bare_parquet_ms: round(bareParquet.ms),
        bare_partitioned_parquet_ms: round(barePartitioned.ms),
        bare_parquet_row_groups_16384_ms: round(bareSmallGroups.ms),
        lake_phases_ms: JSON.stringify(phases),
        parquet_runs_ms: JSON.stringify({
          bare: times.bareParquet.map((r) => round(r.ms)),
          bare_row_groups_16384: times.bareSmallGroups.map((r) => round(r.ms)),
          bare_partitioned: times.barePartitioned.map((r) => round(r.ms)),
          lake: times.lake.map((r) => round(r.ms)),
        }),
        parquet_runs_cpu_ms: JSON.stringify({
          bare: times.bareParquet.map((r) => Math.round(r.cpuMs)),
          bare_row_groups_16384: times.bareSmallGroups.map((r) => Math.round(r.cpuMs)),
          bare_partitioned: times.barePartitioned.map((r) => Math.round(r.cpuMs)),
          lake: times.lake.map((r) => Math.round(r.cpuMs)),
        }),
        lake_ms: round(lake.ms),
        lake_rows_per_s: Math.round(ROWS / (lake.ms / 1000)),
        bare_csv_ms: round(bareCsv.ms),
        report_csv_ms: round(csv.ms),
        report_csv_rows_per_s: Math.round(ROWS / (csv.ms / 1000)),
        arrow_rows_small: ARROW_SMALL,
        arrow_peak_rss_small_mb: round(arrowSmall.maxRssMb),
        arrow_peak_rss_large_mb: round(arrowLarge.maxRssMb),
        arrow_ms_small: arrowSmall.ms,
        arrow_ms_large: arrowLarge.ms,
        ...(real ? { real_marts: JSON.stringify(real) } : {}),
        html_render_ms: round(html.ms),
        html_bytes: html.value.bytes,
        load_average_1_5_15_before: loadBefore.map(round).join(' '),
        load_average_1_5_15_after: loadAfter.map(round).join(' '),
      },
      targets: {
        parquet_throughput_vs_bare_copy: { target: '>= 0.8', met: parquetRatio >= 0.8 },
        csv_throughput_vs_bare_copy: { target: '>= 0.8', met: csvRatio >= 0.8 },
        arrow_peak_rss_10x_over_1x: { target: '<= 1.5 (flat)', met: rssRatio <= 1.5 },
      },
    };
    writeResult(result);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
