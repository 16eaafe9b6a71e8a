/**
 * Exports: Parquet and CSV throughput on a large synthetic mart as a ratio to DuckDB's bare COPY of the same table
 * in the same run (target >= 0.8), the Arrow export's peak RSS as the table grows 10x (each size in a process of its
 * own; target: flat, <= 1.5x), and the HTML report's render time on a 10-project x 52-week reference world.
 * Each timing is the best of three runs, the bare COPY and the export interleaved, so that a burst of load on a
 * shared machine weighs on both alike; the load average is recorded beside the figures.
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

/** The bare COPY statements, each on a fresh read-only connection as the exports open theirs. */
async function bareCopy(db: string, sql: string): Promise<number> {
  const bare = await Database.open(db, { access_mode: 'READ_ONLY' });
  try {
    return (await timed(() => bare.session.run(sql))).ms;
  } finally {
    bare.close();
  }
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
    // (for where the time goes); the lake export of the same table (fresh lake each time). CSV: bare COPY, report.
    const phases: Record<string, number[]> = { hash_ms: [], write_ms: [], publish_ms: [] };
    const times = { bareParquet: [] as number[], barePartitioned: [] as number[], lake: [] as number[] };
    const csvTimes = { bare: [] as number[], report: [] as number[] };
    for (let i = 0; i < 3; i++) {
      times.bareParquet.push(
        await bareCopy(
          db,
          `COPY marts.big_facts TO '${join(dir, `bare-${i}.parquet`)}' (FORMAT parquet, COMPRESSION zstd)`,
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
        (
          await timed(() =>
            exportParquetLake({ db, outDir: join(dir, `lake-${i}`), tables: ['big_facts'], log: steps }),
          )
        ).ms,
      );
      csvTimes.bare.push(await bareCopy(db, `COPY marts.big_facts TO '${join(dir, `bare-${i}.csv`)}' (HEADER)`));
      csvTimes.report.push(
        (
          await timed(() =>
            writeReport({ db, name: 'big', format: 'csv', out: join(dir, `big-${i}.csv`), reportsDir: reports }),
          )
        ).ms,
      );
    }
    const bareParquet = { ms: Math.min(...times.bareParquet) };
    const barePartitioned = { ms: Math.min(...times.barePartitioned) };
    const lake = { ms: Math.min(...times.lake) };
    const bareCsv = { ms: Math.min(...csvTimes.bare) };
    const csv = { ms: Math.min(...csvTimes.report) };

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
    const loadAfter = loadavg();

    const parquetRatio = bareParquet.ms / lake.ms;
    const csvRatio = bareCsv.ms / csv.ms;
    const rssRatio = arrowLarge.maxRssMb / arrowSmall.maxRssMb;
    const result: BenchResult = {
      name: 'export',
      description:
        `Parquet lake and CSV report of a ${ROWS.toLocaleString('en-US')}-row mart against DuckDB's bare COPY of the ` +
        `same table in the same run; Arrow export peak RSS at ${ARROW_SMALL.toLocaleString('en-US')} and 10x rows ` +
        `(separate processes); HTML report of a 10-project x ${HTML_DAYS}-day world. ${cpus().length} cores.`,
      ratios: {
        parquet_throughput_vs_bare_copy: round(parquetRatio),
        parquet_throughput_vs_bare_partitioned_copy: round(barePartitioned.ms / lake.ms),
        csv_throughput_vs_bare_copy: round(csvRatio),
        arrow_peak_rss_10x_over_1x: round(rssRatio),
      },
      figures: {
        rows: ROWS,
        bare_parquet_ms: round(bareParquet.ms),
        bare_partitioned_parquet_ms: round(barePartitioned.ms),
        lake_phases_ms: JSON.stringify(phases),
        parquet_runs_ms: JSON.stringify({
          bare: times.bareParquet.map(round),
          bare_partitioned: times.barePartitioned.map(round),
          lake: times.lake.map(round),
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

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
