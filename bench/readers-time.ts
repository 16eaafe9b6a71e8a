/**
 * The readers bench's timing process (bench/readers.bench.ts spawns one per source and size, so that neither the
 * bench's own memory nor the other source's caches weigh on the figures):
 *
 *   node dist/bench/readers-time.js <published|lake> <path> <questions.json>
 *
 * For each query of bench/readers-queries.ts and each sample: a fresh DuckDB instance (the published copy opened
 * read-only, or an in-memory database with the lake's views), the query run once (cold: nothing of the file in
 * DuckDB's buffer pool or its caches; the OS page cache as it is), then WARM more times on the same connection
 * (warm). Each run reads the whole result. Prints one JSON object: per query its cold and warm samples in ms.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReportData } from '../src/export/html/data.js';
import { Database } from '../src/warehouse/duckdb.js';
import { lakeViewsSql, type Question, readerQueries } from './readers-queries.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = here.includes(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');
const MODELS_DIR = join(ROOT, 'dbt-like-models');

/** Cold samples of a one-project question (spread over the projects), of an account-wide one, warm runs per open. */
export const SAMPLES = { project: 10, account: 3, warm: 2 } as const;

export interface QueryTimes {
  name: string;
  kind: string;
  /** 'page': the HTML report's whole data of one project (many queries; no target of its own). */
  scope: 'project' | 'account' | 'page';
  rows: number;
  /** Opening the instance (and, for the lake, creating its views) before the cold run. */
  open_ms: number[];
  cold_ms: number[];
  warm_ms: number[];
  /** CPU (user + system of this process, DuckDB's threads included) of each cold and warm run: robust to load. */
  cold_cpu_ms: number[];
  warm_cpu_ms: number[];
}

export interface SourceTimes {
  source: 'published' | 'lake';
  load_average_at_start: number;
  load_average_at_end: number;
  cpu_ms: number;
  queries: QueryTimes[];
}

async function open(source: 'published' | 'lake', path: string): Promise<Database> {
  if (source === 'published') return Database.open(path, { access_mode: 'READ_ONLY' });
  const db = await Database.open(':memory:');
  for (const statement of lakeViewsSql(path, MODELS_DIR)) await db.session.run(statement);
  return db;
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function timeSource(
  source: 'published' | 'lake',
  path: string,
  questions: { projects: Question[]; account: Question },
): Promise<SourceTimes> {
  const load = loadavg()[0] ?? 0;
  const cpu = process.cpuUsage();
  type Run = (db: Database, q: Question) => Promise<number>;
  const runs: { name: string; kind: string; scope: QueryTimes['scope']; run: Run }[] = readerQueries().map((query) => ({
    name: query.name,
    kind: query.kind,
    scope: query.scope,
    run: async (db, q) => (await db.connection.runAndReadAll(query.sql, query.params(q))).currentRowCount,
  }));
  // the HTML report's whole data for one project (its queries and the reports it shows), as vwh report html runs
  // it: the published copy only (it reads raw.projects and ops.sync_runs, which the lake does not hold)
  if (source === 'published') {
    runs.push({
      name: 'html_page_data',
      kind: 'html',
      scope: 'page',
      run: async (db, q) => (await loadReportData(db, { projectId: q.project ?? '' })).projects.length,
    });
  }
  const out: QueryTimes[] = [];
  for (const query of runs) {
    const times: QueryTimes = {
      ...query,
      rows: 0,
      open_ms: [],
      cold_ms: [],
      warm_ms: [],
      cold_cpu_ms: [],
      warm_cpu_ms: [],
    };
    delete (times as Partial<typeof query>).run;
    const n = query.scope === 'account' ? SAMPLES.account : SAMPLES.project;
    for (let i = 0; i < n; i++) {
      const q =
        query.scope === 'account' ? questions.account : (questions.projects[i % questions.projects.length] as Question);
      let start = process.hrtime.bigint();
      const db = await open(source, path);
      times.open_ms.push(ms(start));
      try {
        let cpu = process.cpuUsage();
        start = process.hrtime.bigint();
        times.rows = Math.max(times.rows, await query.run(db, q));
        times.cold_ms.push(ms(start));
        times.cold_cpu_ms.push(cpuMs(cpu));
        for (let w = 0; w < SAMPLES.warm; w++) {
          cpu = process.cpuUsage();
          start = process.hrtime.bigint();
          await query.run(db, q);
          times.warm_ms.push(ms(start));
          times.warm_cpu_ms.push(cpuMs(cpu));
        }
      } finally {
        db.close();
      }
    }
    out.push(times);
  }
  const used = process.cpuUsage(cpu);
  return {
    source,
    load_average_at_start: load,
    load_average_at_end: loadavg()[0] ?? 0,
    cpu_ms: Math.round((used.user + used.system) / 1000),
    queries: out,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [source, path, questionsFile] = process.argv.slice(2) as ['published' | 'lake', string, string];
  const questions = JSON.parse(readFileSync(questionsFile, 'utf8')) as { projects: Question[]; account: Question };
  const result = await timeSource(source, path, questions);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
