/**
 * `vwh demo`: the first run of a newcomer. Starts the reference services in-process with the seeded demo team,
 * syncs them into the warehouse (data/warehouse.duckdb by default), builds the models of dbt-like-models/ into the
 * same warehouse (`vwh models build`, through the runner API), and prints what landed and what to query next.
 * The rate window is scaled (1 s instead of 60 s by default) so the whole demo takes seconds; everything else is the
 * production code path of `vwh sync` and `vwh models build`.
 */
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, InvalidArgumentError } from 'commander';
import { systemClock } from '../../core/clock.js';
import { ExitCode, registerSecret } from '../../core/errors.js';
import { createLogger } from '../../core/log.js';
import { buildCatalog } from '../../models/artifacts/catalog.js';
import { dataDictionary } from '../../models/artifacts/docs-markdown.js';
import { buildManifest } from '../../models/artifacts/manifest.js';
import { runResultsJson } from '../../models/artifacts/run-results.js';
import { defaultTargetDir, writeArtifact } from '../../models/artifacts/write.js';
import { Executor } from '../../models/executor.js';
import { DEFAULT_MODELS_DIR, loadProject } from '../../models/project.js';
import { exitCodeFor, type RunResults, runProject } from '../../models/runner.js';
import { startReferenceServer } from '../../reference/index.js';
import { Database, DEFAULT_DB_PATH } from '../../warehouse/duckdb.js';
import { runSyncCommand } from './sync.js';

export interface DemoFlags {
  db: string;
  seed: number;
  historyDays: number;
  projects: number;
  prompts: number;
  rateWindowMs: number;
  logFormat?: 'pretty' | 'json';
  /** The models folder; default dbt-like-models/ of the working directory, else the one shipped with vwh. */
  modelsDir?: string;
  /** Sync only, build no models. */
  models?: boolean;
}

function int(min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer >= ${min}.`);
    return n;
  };
}

export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the main job on the embedded default: the reference services with a demo team, synced into the warehouse.',
    )
    .option('--db <path>', 'DuckDB file to fill', DEFAULT_DB_PATH)
    .option('--seed <n>', 'seed of the simulated world', int(0), 42)
    .option('--history-days <n>', 'days of history in the demo world', int(1), 90)
    .option('--projects <n>', 'demo projects', int(1), 3)
    .option('--prompts <n>', 'prompts per demo project', int(1), 12)
    .option('--rate-window-ms <ms>', 'rate window of the demo key (60000 in production)', int(1), 1000)
    .option('--log-format <format>', 'pretty or json (default: pretty on a terminal)')
    .option('--models-dir <dir>', 'the models to build after the sync (default: dbt-like-models)')
    .option('--no-models', 'sync only; do not build the models')
    .addHelpText(
      'after',
      '\nExample:\n  vwh demo --db data/warehouse.duckdb\n' +
        '  vwh query "select * from marts.brand_visibility_trend limit 5"',
    )
    .action(async (flags: DemoFlags) => {
      process.exitCode = await runDemo(flags);
    });
}

export async function runDemo(flags: DemoFlags, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const server = await startReferenceServer({
    demo: true,
    seed: flags.seed,
    historyDays: flags.historyDays,
    projects: flags.projects,
    prompts: flags.prompts,
    rateWindowMs: flags.rateWindowMs,
  });
  const previousKey = process.env.VWH_API_KEY;
  try {
    const key = server.demoApiKey;
    if (!key) throw new Error('the reference server started without a demo key');
    registerSecret(key);
    process.env.VWH_API_KEY = key;
    out.write(`reference services: ${server.url} (demo team, seed ${flags.seed}, ${flags.historyDays} days)\n`);
    // The demo key belongs to the demo user: its id lets the team_members stream run too.
    const userId = server.state.accounts.findKey(key)?.user_id ?? undefined;
    const code = await runSyncCommand({
      db: flags.db,
      baseUrl: server.url,
      team: 'demo',
      ...(userId ? { userId } : {}),
      rateWindowMs: flags.rateWindowMs,
      ...(flags.logFormat ? { logFormat: flags.logFormat } : {}),
    });
    const build = flags.models === false ? undefined : await buildModels(flags, out);
    await printSummary(flags.db, out, build);
    return Math.max(code, build ? exitCodeFor(build) : 0);
  } finally {
    if (previousKey === undefined) delete process.env.VWH_API_KEY;
    else process.env.VWH_API_KEY = previousKey;
    await server.close();
  }
}

/** The models folder: --models-dir, else ./dbt-like-models, else the folder shipped beside the compiled CLI. */
function modelsDirFor(flags: DemoFlags): string {
  if (flags.modelsDir) return flags.modelsDir;
  if (existsSync(DEFAULT_MODELS_DIR)) return DEFAULT_MODELS_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = resolve(dir, DEFAULT_MODELS_DIR);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return DEFAULT_MODELS_DIR;
}

/** `vwh models build` into the demo's warehouse, with its artifacts (run results, data dictionary) beside it. */
async function buildModels(flags: DemoFlags, out: NodeJS.WritableStream): Promise<RunResults> {
  const modelsDir = modelsDirFor(flags);
  out.write(`\nbuilding the models of ${modelsDir} into ${flags.db}\n`);
  const project = await loadProject(modelsDir);
  const db = await Database.open(flags.db);
  try {
    const results = await runProject(db, project, {
      command: 'build',
      threads: 2,
      clock: systemClock,
      // Failures only: the summary below lists what was built.
      logger: createLogger({ level: 'warn', ...(flags.logFormat ? { format: flags.logFormat } : {}) }),
    });
    const target = defaultTargetDir(flags.db);
    const manifest = buildManifest(project, new Date());
    writeArtifact(target, 'manifest.json', manifest);
    writeArtifact(target, 'run_results.json', runResultsJson(results));
    const catalog = await buildCatalog(new Executor(db.connection), project);
    writeArtifact(target, 'catalog.json', catalog);
    const dictionary = writeArtifact(target, 'data_dictionary.md', dataDictionary(manifest, catalog));
    const counts = new Map<string, number>();
    for (const r of results.results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    out.write(
      `models: ${[...counts.entries()].map(([s, n]) => `${n} ${s}`).join(', ')}; data dictionary: ${dictionary}\n`,
    );
    for (const r of results.results.filter((x) => x.status !== 'success')) {
      const audits = r.audits.filter((a) => a.status !== 'pass').map((a) => `${a.name} (${a.failures} rows)`);
      const why = r.message?.split('\n')[0] ?? (audits.length ? `audits ${audits.join(', ')}` : '');
      out.write(`  ${r.status.toUpperCase().padEnd(7)} ${r.id}${why ? `: ${why}` : ''}\n`);
    }
    if (exitCodeFor(results) === ExitCode.partial) {
      out.write(`  details: ${resolve(target, 'run_results.json')} (the models that built are queryable)\n`);
    }
    return results;
  } finally {
    db.close();
  }
}

/** What to try first on each mart; marts not listed get a plain `select *`. */
const EXAMPLES: Record<string, string> = {
  brand_visibility_daily:
    "select date, brand_name, responses, mentions, visibility_pct, visibility_ci_low_pct, visibility_ci_high_pct from marts.brand_visibility_daily where provider = 'all' order by date desc, visibility_pct desc limit 20",
  brand_visibility_trend:
    "select date, brand_name, visibility_28d_pct, mom_delta_pp, mom_ci_low_pp, mom_ci_high_pp, mom_significant from marts.brand_visibility_trend where is_own_brand and provider = 'all' and mom_delta_pp is not null order by date desc limit 10",
  share_of_voice_daily:
    "select project_id, brand_name, is_tracked, sum(brand_responses) as named, round(100 * sum(brand_responses) / sum(sum(brand_responses)) over (partition by project_id), 1) as sov_all_pct from marts.share_of_voice_daily where provider = 'all' group by project_id, brand_name, is_tracked order by project_id, named desc",
  prompt_performance_daily:
    "select prompt_content, provider, sum(mentions) as mentions, sum(responses) as responses, round(100 * sum(mentions) / sum(responses), 1) as visibility_pct from marts.prompt_performance_daily where provider <> 'all' group by all order by visibility_pct limit 10",
  api_reconciliation:
    'select match_status, within_rounding, count(*), max(abs(visibility_diff)) as max_visibility_diff from marts.api_reconciliation group by all',
};

async function printSummary(path: string, out: NodeJS.WritableStream, build?: RunResults): Promise<void> {
  const db = await Database.open(path);
  try {
    const names = await db.all<{ schema: string; name: string }>(
      `select schema_name as schema, table_name as name from duckdb_tables()
        where schema_name in ('raw', 'marts') order by 1, 2`,
    );
    const count = async (schema: string, name: string) =>
      Number(await db.scalar(`select count(*) from "${schema}"."${name}"`));
    out.write(`\nwarehouse: ${path}\n`);
    for (const t of names.filter((n) => n.schema === 'raw')) {
      out.write(`  raw.${t.name.padEnd(28)} ${String(await count(t.schema, t.name)).padStart(9)} rows\n`);
    }
    const marts = names.filter((n) => n.schema === 'marts');
    if (marts.length) {
      const views = Number(await db.scalar("select count(*) from duckdb_views() where schema_name = 'staging'"));
      out.write(`\nmarts (built from ${views} staging views):\n`);
      for (const t of marts) {
        out.write(`  marts.${t.name.padEnd(26)} ${String(await count(t.schema, t.name)).padStart(9)} rows\n`);
      }
      out.write('\nQuery it next, for example:\n');
      for (const t of marts) {
        const sql = EXAMPLES[t.name] ?? `select * from marts.${t.name} limit 20`;
        out.write(`  ${queryCommand(path)} "${sql}"\n`);
      }
      out.write('  docs/analytics.md explains every mart: grain, columns, formulas.\n');
    } else {
      out.write(
        `\nQuery it next, for example:\n` +
          `  ${queryCommand(path)} "select platform, avg(mentioned::int) * 100 as visibility_pct from raw.chats group by 1"\n`,
      );
    }
    if (build === undefined)
      out.write(`  ${cliCommand()} models build --db ${path}   (builds staging.* and marts.*)\n`);
    out.write(`  ${queryCommand(path)} "select * from ops.sync_runs order by started_at desc limit 1"\n`);
  } finally {
    db.close();
  }
}

/** How this CLI was started, so printed commands can be pasted: `node dist/src/cli/bin.js` from a checkout, else `vwh`. */
function cliCommand(): string {
  const script = process.argv[1];
  if (script && /bin\.js$/.test(script)) return `node ${relative(process.cwd(), script) || script}`;
  return 'vwh';
}

/** `vwh query` on this warehouse (`--db` only when it is not the default). */
export function queryCommand(path: string): string {
  return `${cliCommand()} query${path === DEFAULT_DB_PATH ? '' : ` --db ${path}`}`;
}
