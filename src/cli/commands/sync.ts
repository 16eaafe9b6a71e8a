/**
 * `vwh sync`: copies every readable resource of the API into raw.* of the warehouse, within the key's rate budget,
 * resumably (each unit of work commits with its state) and idempotently (partitions are replaced, never appended).
 * `--plan` prints the request plan and stops. Exit codes: 0 ok, 1 failed units, 2 rejected rows or unreachable
 * projects, 3 key refused, 4 warehouse locked, 130 stopped by SIGINT/SIGTERM (the units fetched in full landed).
 */
import type { Command } from 'commander';
import { DEFAULT_DB_PATH, DEFAULT_RESOURCES } from '../../core/defaults.js';
import { ExitCode, exitCodesHelp, VwhError } from '../../core/errors.js';
import { ApiDay, MaxRetryAfterSeconds, MemorySize, Share, timerMs, Uuid, wholeNumber } from '../../core/inputs.js';
import { STREAM_NAMES } from '../../core/stream-names.js';
import type { SyncOptions } from '../../sync/run.js';
import { numberFlag, textFlag } from '../validate.js';

/** The command's flags: the sync's options and --config-schema. */
export interface SyncFlags extends SyncOptions {
  configSchema?: boolean;
  /** On the embedded demo services (the world `vwh run` uses without a key): a plan a new user can preview. */
  embedded?: boolean;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function streamList(value: string): string[] {
  const names = list(value);
  const unknown = names.filter((n) => !STREAM_NAMES.includes(n));
  if (unknown.length > 0)
    throw new VwhError(
      'USAGE',
      `--streams: unknown stream ${unknown.join(', ')}; streams: ${STREAM_NAMES.join(', ')}.`,
    );
  return names;
}

export function register(program: Command): void {
  program
    .command('sync')
    .description('Copy the API into the warehouse (raw.*), resumably and within the key rate budget.')
    .option('--db <path>', `DuckDB file (default ${DEFAULT_DB_PATH}, or "db" in the config)`)
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option('--plan', 'print the request plan (requests per stream, floor time, what is complete) and stop')
    .option(
      '--embedded',
      'on the embedded demo services, the world vwh run uses without a key (vwh sync --plan --embedded previews a plan)',
    )
    .option(
      '--since <day>',
      'first day of day-partitioned streams (default: each prompt creation day)',
      textFlag('--since', ApiDay),
    )
    .option('--until <day>', 'last day (default: today, the API current day)', textFlag('--until', ApiDay))
    .option(
      '--full-refresh',
      'fetch everything of the selected streams again, each unit replacing its rows as it lands',
    )
    .option('--streams <list>', `comma-separated streams (default all): ${STREAM_NAMES.join(', ')}`, streamList)
    .option('--projects <list>', 'comma-separated project ids or names (default all)', list)
    .option(
      '--lookback-days <n>',
      'recent days re-fetched every sync to catch late answers (default 3)',
      numberFlag('--lookback-days', wholeNumber(0, 60)),
    )
    .option(
      '--window-days <n>',
      'window of window-grain streams, ending on the last day (default 30)',
      numberFlag('--window-days', wholeNumber(1, 366)),
    )
    .option(
      '--top-domains <n>',
      'domains per project for source_details and source_chats (default 3)',
      numberFlag('--top-domains', wholeNumber(0, 100)),
    )
    .option('--team <name>', 'team name stored in every row (single-key runs; default VWH_TEAM or "default")')
    .option('--key-file <path>', 'read the API key from this file instead of VWH_API_KEY')
    .option('--base-url <url>', 'API base URL (default VWH_BASE_URL)')
    .option(
      '--services-base-url <url>',
      'base URL of the content and team services, /api/v1 and /api/v2 (default VWH_SERVICES_BASE_URL, else the API base URL)',
    )
    .option(
      '--user-id <uuid>',
      'user the team service answers for; team_members is skipped without it (VWH_USER_ID)',
      textFlag('--user-id', Uuid),
    )
    .option(
      '--budget-share <fraction>',
      'part of the key rate window this sync may use, leaving the rest to other users of the key (default 1)',
      numberFlag('--budget-share', Share),
    )
    .option(
      '--today <day>',
      "the API's current UTC day (default: today; a reference server may simulate another)",
      textFlag('--today', ApiDay),
    )
    .option(
      '--rate-window-ms <ms>',
      'rate window length (default 60000; scaled for tests and benchmarks)',
      numberFlag('--rate-window-ms', timerMs(1)),
    )
    .option(
      '--concurrency <n>',
      'requests in flight per key (default 4)',
      numberFlag('--concurrency', wholeNumber(1, 32)),
    )
    .option(
      '--max-retry-after <s>',
      'longest Retry-After waited for, in seconds; a longer one fails its unit, which the next sync fetches (default 300)',
      numberFlag('--max-retry-after', MaxRetryAfterSeconds),
    )
    .option(
      '--memory-limit <size>',
      `DuckDB memory limit, spilling to disk beyond it (default ${DEFAULT_RESOURCES.memoryLimit}; e.g. 2GB)`,
      textFlag('--memory-limit', MemorySize),
    )
    .option(
      '--threads <n>',
      `DuckDB threads (default ${DEFAULT_RESOURCES.threads})`,
      numberFlag('--threads', wholeNumber(1, 256)),
    )
    .option(
      '--max-response-bytes <n>',
      'largest response body read; a larger one fails its unit and the sync goes on (default 67108864, 64 MiB)',
      numberFlag('--max-response-bytes', wholeNumber(1024)),
    )
    .option(
      '--rotation-days <n>',
      'prompt metrics, domains and URLs are refreshed for each prompt once in this many nights, spread evenly (default 7; 1 = every night)',
      numberFlag('--rotation-days', wholeNumber(1, 31)),
    )
    .option('--config-schema', 'print the JSON Schema of vwh.config.json and stop')
    .addHelpText(
      'after',
      exitCodesHelp([0, 1, 2, 3, 4, 64, 130], {
        1: 'units failed (fetched again by the next sync)',
        2: 'rows rejected (ops.rejected_rows) or projects skipped',
        130: 'the units fetched in full landed; the next sync fetches the rest',
      }),
    )
    .action(async (flags: SyncFlags) => {
      process.exitCode = await runSyncCommand(flags);
    });
}

/** The command body, callable from tests. Returns the exit code; throws VwhError for usage, auth and lock errors. */
export async function runSyncCommand(flags: SyncFlags, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  if (flags.configSchema) {
    const { configJsonSchema } = await import('../../core/config.js');
    const { jsonDocument } = await import('../../core/log.js');
    out.write(jsonDocument(configJsonSchema()));
    return ExitCode.ok;
  }
  const { runSync, syncProblems } = await import('../../sync/run.js');
  const { logFormat, userLine } = await import('../../core/log.js');
  // JSON logs: what is printed here is JSON events too
  const format = flags.logFormat ?? logFormat();
  let outcome: Awaited<ReturnType<typeof runSync>>;
  if (flags.embedded) {
    const { DEMO_WORLD, embeddedSyncOptions, startEmbedded, withEmbeddedKey } = await import('../../ops/embedded.js');
    const { loadConfig } = await import('../../core/config.js');
    const { dbPathOf } = await import('../../ops/paths.js');
    const db = dbPathOf(flags, loadConfig(flags.config));
    const world = { ...DEMO_WORLD, ...(flags.today ? { today: flags.today } : {}) };
    const services = await startEmbedded(world, db);
    try {
      process.stderr.write(userLine(`sync on ${services.describe}`, format, 'info'));
      const options = { ...flags, db, ...embeddedSyncOptions(services, world, flags) };
      outcome = await withEmbeddedKey(services, () => runSync(options, { out }));
    } finally {
      await services.close();
    }
  } else outcome = await runSync(flags, { out });
  for (const line of syncProblems(outcome, Boolean(flags.plan))) process.stderr.write(userLine(line, format));
  return outcome.exitCode;
}
