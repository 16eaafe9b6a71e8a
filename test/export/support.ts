/**
 * A small world for the export tests: `vwh run` on the embedded default (reference server on port 0, the production
 * sync and models build) into a temp warehouse, once per test file. Another seed and size than the demo's, across two months so
 * that facts land in more than one month partition.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { chromium } from 'playwright-core';
import type { EmbeddedWorld } from '../../src/ops/embedded.js';
import { runNightly } from '../../src/ops/nightly.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';

export const EXPORT_WORLD = { seed: 11, historyDays: 40, projects: 2, prompts: 3 } as const;

export interface ExportWorld {
  dir: string;
  /** The built warehouse (closed). */
  db: string;
  /** A copy of the warehouse at `name`, optionally changed by `sql` (run on the copy, writable). */
  copy(name: string, sql?: string): Promise<string>;
  cleanup(): void;
}

/** `world`: another shape (and a fixed `today`, so that its days are the same on every run) than EXPORT_WORLD. */
export async function buildExportWorld(world: Partial<EmbeddedWorld> = {}): Promise<ExportWorld> {
  const dir = tempDir('vwh-export-').dir;
  const db = join(dir, 'warehouse.duckdb');
  const out = new PassThrough();
  out.resume();
  const config = join(dir, 'vwh.config.json');
  // Only what the export tests read: the sync and the models (their own exports are what they test).
  writeFileSync(config, JSON.stringify({ exports: {}, publish: { enabled: false } }));
  const { exitCode } = await runNightly(
    { db, config, embedded: true, world: { ...EXPORT_WORLD, ...world }, rateWindowMs: 200, logFormat: 'json' },
    { out },
  );
  if (exitCode !== 0) throw new Error(`the export test world ended with exit ${exitCode}`);
  return {
    dir,
    db,
    async copy(name, sql) {
      const path = join(dir, name);
      copyFileSync(db, path);
      if (sql) {
        await runOn(path, sql);
      }
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs `sql` on the DuckDB file at `path` (crafting or changing a test warehouse), then closes the file. */
export async function runOn(path: string, sql: string): Promise<void> {
  const db = await Database.open(path);
  try {
    await db.session.run(sql);
  } finally {
    db.close();
  }
}

/** Rows of `sql` on a fresh in-memory DuckDB (to read the lake as any other reader would, not through the export). */
export async function readWithDuckDB<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
  const db = await Database.open(':memory:');
  try {
    await db.session.run("SET TimeZone = 'UTC'");
    return await db.session.all<T>(sql);
  } finally {
    db.close();
  }
}

/** Every Parquet file below `root` (relative path → modification time): which files an export rewrote. */
export function mtimes(root: string): Record<string, number> {
  const out: Record<string, number> = {};
  if (!existsSync(root)) return out;
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.parquet')) {
      const path = join(e.parentPath, e.name);
      out[path.slice(root.length + 1)] = statSync(path).mtimeMs;
    }
  }
  return out;
}

/** Every file below `root` (relative path → sha256), the lake's observable state. */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[path.slice(root.length + 1)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

/** The lake's tables (`schema/table`) that hold at least one Parquet file. */
export function tablesWithFiles(lake: string): string[] {
  const out: string[] = [];
  for (const schema of readdirSync(lake).filter((s) => !s.startsWith('_'))) {
    for (const table of readdirSync(join(lake, schema))) {
      const files = readdirSync(join(lake, schema, table), { recursive: true }).map(String);
      if (files.some((f) => f.endsWith('.parquet'))) out.push(`${schema}/${table}`);
    }
  }
  return out.sort();
}

/** Columns a sync run or a build stamps with its own id or time: they differ between any two runs. */
const RUN_COLUMNS = new Set(['_sync_run_id', '_extracted_at']);

/**
 * For each table of lake `a`, the rows in one lake and not the other, both ways (multisets; floats to 9 digits; the
 * run's own columns left out), as DuckDB's `read_parquet` with Hive partitions reads them: tables that differ only.
 */
export async function lakeDifferences(
  a: string,
  b: string,
  tables = tablesWithFiles(a),
): Promise<Record<string, number>> {
  const db = await Database.open(':memory:');
  try {
    await db.session.run("SET TimeZone = 'UTC'");
    const diffs: Record<string, number> = {};
    for (const table of tables) {
      const described = await db.session.all<{ column_name: string; column_type: string }>(
        `describe select * from read_parquet('${a}/${table}/**/*.parquet', hive_partitioning = true)`,
      );
      const columns = described
        .filter((c) => !RUN_COLUMNS.has(c.column_name))
        .map((c) => (/^(DOUBLE|FLOAT)$/.test(c.column_type) ? `round("${c.column_name}", 9)` : `"${c.column_name}"`));
      const rows = (lake: string) =>
        `select ${columns.join(', ')} from read_parquet('${lake}/${table}/**/*.parquet', hive_partitioning = true)`;
      const n = Number(
        await db.session.scalar(
          `select count(*) from ((${rows(a)} except all ${rows(b)}) union all (${rows(b)} except all ${rows(a)}))`,
        ),
      );
      if (n !== 0) diffs[table] = n;
    }
    return diffs;
  } finally {
    db.close();
  }
}

/** Debian's chromium (`test/setup/system-deps.sh` installs it), or the browser VWH_CHROMIUM names; nothing is downloaded. */
export const CHROMIUM = process.env.VWH_CHROMIUM ?? '/usr/bin/chromium';

export interface HtmlFigure {
  chart: string;
  caption: string;
  /** The SVG's texts (axis labels, bar names). */
  labels: string[];
  /** The data table's column headings. */
  head: string[];
  /** The data table's rows, cell texts. */
  cells: string[][];
  /** The SVG's drawn marks (paths, rects, lines). */
  marks: number;
}

/**
 * The HTML report at `file` as headless Chromium renders it: per project section, its heading and its figures.
 * Page errors are returned, not thrown.
 */
export async function readHtmlSections(
  file: string,
): Promise<{ sections: { heading: string; figures: HtmlFigure[] }[]; errors: string[] }> {
  const profile = tempDir('vwh-chromium-').dir;
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`file://${file}`);
    const sections = await page.$$eval('section.project', (list) =>
      list.map((s) => ({
        heading: s.querySelector('h2')?.textContent ?? '',
        figures: [...s.querySelectorAll('figure.chart')].map((f) => ({
          chart: f.getAttribute('data-chart') ?? '',
          caption: f.querySelector('figcaption')?.textContent ?? '',
          labels: [...f.querySelectorAll('svg text')].map((t) => t.textContent ?? ''),
          head: [...f.querySelectorAll('table thead th')].map((th) => th.textContent ?? ''),
          cells: [...f.querySelectorAll('table tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td, th')].map((td) => td.textContent ?? ''),
          ),
          marks: f.querySelectorAll('svg path, svg rect, svg line').length,
        })),
      })),
    );
    return { sections, errors };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
