/**
 * `vwh demo`: the first run of a newcomer. Starts the reference services in-process with the seeded demo team,
 * syncs them into the warehouse (data/warehouse.duckdb by default), and prints what landed and what to query next.
 * The rate window is scaled (1 s instead of 60 s by default) so the whole demo takes seconds; everything else is the
 * production code path of `vwh sync`.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { registerSecret } from '../../core/errors.js';
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
    .addHelpText(
      'after',
      '\nExample:\n  vwh demo --db data/warehouse.duckdb\n  duckdb data/warehouse.duckdb "select * from raw.chats limit 5"',
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
    const code = await runSyncCommand({
      db: flags.db,
      baseUrl: server.url,
      team: 'demo',
      rateWindowMs: flags.rateWindowMs,
      ...(flags.logFormat ? { logFormat: flags.logFormat } : {}),
    });
    await printSummary(flags.db, out);
    return code;
  } finally {
    if (previousKey === undefined) delete process.env.VWH_API_KEY;
    else process.env.VWH_API_KEY = previousKey;
    await server.close();
  }
}

async function printSummary(path: string, out: NodeJS.WritableStream): Promise<void> {
  const db = await Database.open(path);
  try {
    const names = await db.all<{ name: string }>(
      `select schema_name || '.' || table_name as name from duckdb_tables()
        where schema_name in ('raw', 'staging', 'marts') order by 1`,
    );
    const tables: Array<{ name: string; rows: number }> = [];
    for (const { name } of names) {
      tables.push({ name, rows: Number(await db.scalar(`select count(*) from ${name}`)) });
    }
    out.write(`\nwarehouse: ${path}\n`);
    for (const t of tables) out.write(`  ${t.name.padEnd(32)} ${String(t.rows).padStart(9)} rows\n`);
    out.write(
      `\nQuery it next, for example:\n` +
        `  duckdb ${path} "select platform, avg(mentioned::int) * 100 as visibility_pct from raw.chats group by 1"\n` +
        `  duckdb ${path} "select * from ops.sync_runs order by started_at desc limit 1"\n`,
    );
  } finally {
    db.close();
  }
}
