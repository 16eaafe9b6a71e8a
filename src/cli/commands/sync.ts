/**
 * `vwh sync`: copies every readable resource of the API into raw.* of the warehouse, within the key's rate budget,
 * resumably (each unit of work commits with its state) and idempotently (partitions are replaced, never appended).
 * `--plan` prints the request plan and stops. Exit codes: 0 ok, 1 failed units, 2 rejected rows or unreachable
 * projects, 3 key refused, 4 warehouse locked.
 */
import type { Command } from 'commander';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../../client/retry-after.js';
import { ExitCode, VwhError } from '../../core/errors.js';
import { BaseUrl, Day, DbFile, MaxRetryAfterSeconds, MemorySize, Share, Uuid, wholeNumber } from '../../core/inputs.js';
import type { LogFormat } from '../../core/log.js';
import type { ProgressSink } from '../../extract/progress.js';
import type { TeamJob } from '../../extract/run-sync.js';
import { STREAM_NAMES } from '../../extract/streams/names.js';
import type { summary } from '../../extract/team-sync.js';
import type { SyncSettings } from '../../extract/types.js';
import { DEFAULT_DB_PATH, DEFAULT_RESOURCES } from '../../warehouse/defaults.js';
import { logFormatOption, numberFlag, resolved, textFlag } from '../validate.js';

export interface SyncFlags {
  db?: string;
  config?: string;
  plan?: boolean;
  since?: string;
  until?: string;
  fullRefresh?: boolean;
  streams?: string[];
  projects?: string[];
  lookbackDays?: number;
  windowDays?: number;
  topDomains?: number;
  logFormat?: LogFormat;
  team?: string;
  keyFile?: string;
  baseUrl?: string;
  servicesBaseUrl?: string;
  userId?: string;
  budgetShare?: number;
  today?: string;
  rateWindowMs?: number;
  concurrency?: number;
  maxRetryAfter?: number;
  memoryLimit?: string;
  threads?: number;
  maxResponseBytes?: number;
  rotationDays?: number;
  configSchema?: boolean;
}

const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';
const DEFAULT_MAX_RETRY_AFTER_S = DEFAULT_MAX_RETRY_AFTER_MS / 1000;

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

/** The API's `{base_url}`: scheme, host and port (a trailing /api/public/v1 is tolerated and removed). */
export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/api\/public\/v1$/, '');
}

export function register(program: Command): void {
  program
    .command('sync')
    .description('Copy the API into the warehouse (raw.*), resumably and within the key rate budget.')
    .option('--db <path>', `DuckDB file (default ${DEFAULT_DB_PATH}, or "db" in the config)`)
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option('--plan', 'print the request plan (requests per stream, floor time, what is complete) and stop')
    .option(
      '--since <day>',
      'first day of day-partitioned streams (default: each prompt creation day)',
      textFlag('--since', Day),
    )
    .option('--until <day>', 'last day (default: today, the API current day)', textFlag('--until', Day))
    .option('--full-refresh', 'forget the sync state of the selected streams and fetch everything again')
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
    .addOption(logFormatOption())
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
      textFlag('--today', Day),
    )
    .option(
      '--rate-window-ms <ms>',
      'rate window length (default 60000; scaled for tests and benchmarks)',
      numberFlag('--rate-window-ms', wholeNumber(1)),
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
    .action(async (flags: SyncFlags) => {
      process.exitCode = await runSyncCommand(flags);
    });
}

/** The command body, callable from tests. Returns the exit code; throws VwhError for usage, auth and lock errors. */
export async function runSyncCommand(
  flags: SyncFlags,
  out: NodeJS.WritableStream = process.stdout,
  /** A caller's stop (the nightly job's SIGTERM): the sync stops as on SIGINT, its unit in hand committed. */
  stop?: AbortSignal,
): Promise<number> {
  const { configJsonSchema, loadConfig, readKey } = await import('../../extract/config.js');
  if (flags.configSchema) {
    out.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    return ExitCode.ok;
  }
  const { createLogger } = await import('../../core/log.js');
  const { msToDay } = await import('../../core/days.js');
  const { DEFAULT_ROTATION_DAYS } = await import('../../extract/types.js');
  const { formatPlan, LogProgress, TerminalProgress } = await import('../../extract/progress.js');
  const { syncAll } = await import('../../extract/run-sync.js');
  const { addBootstrappedProjects } = await import('../../ops/events/bootstrapped.js');
  const { Warehouse } = await import('../../warehouse/warehouse.js');
  const config = loadConfig(flags.config);
  const logger = createLogger(flags.logFormat ? { format: flags.logFormat } : {});
  // Flags reach here from commander or straight from callers and environment variables from cron scripts: every
  // value is checked once more with the same schema, under the name of where it came from.
  const inConfig = (field: string) => `${field} in ${flags.config ?? 'vwh.config.json'}`;
  const baseUrl = normalizeBaseUrl(
    resolved(
      BaseUrl,
      [
        ['--base-url', flags.baseUrl],
        ['VWH_BASE_URL', process.env.VWH_BASE_URL],
        [inConfig('baseUrl'), config.baseUrl],
      ],
      DEFAULT_BASE_URL,
    ) as string,
  );
  const servicesBaseUrl = resolved(BaseUrl, [
    ['--services-base-url', flags.servicesBaseUrl],
    ['VWH_SERVICES_BASE_URL', process.env.VWH_SERVICES_BASE_URL],
    [inConfig('servicesBaseUrl'), config.servicesBaseUrl],
  ]);
  const userId = resolved(Uuid, [
    ['--user-id', flags.userId],
    ['VWH_USER_ID', process.env.VWH_USER_ID || undefined],
    [inConfig('userId'), config.userId],
  ]);
  const budgetShare = resolved(Share, [
    ['--budget-share', flags.budgetShare],
    [inConfig('budgetShare'), config.budgetShare],
  ]);
  const dbPath = resolved(
    DbFile,
    [
      ['--db', flags.db],
      [inConfig('db'), config.db],
    ],
    DEFAULT_DB_PATH,
  ) as string;
  const since = resolved(Day, [
    ['--since', flags.since],
    [inConfig('since'), config.since],
  ]);
  const until = resolved(Day, [['--until', flags.until]]);
  const today = resolved(Day, [['--today', flags.today]], msToDay(Date.now())) as string;
  const jobs: TeamJob[] = config.teams
    ? config.teams.map((t) => ({
        teamId: t.team,
        baseUrl: normalizeBaseUrl(t.baseUrl ?? baseUrl),
        ...servicesOf(t.servicesBaseUrl ?? servicesBaseUrl),
        userId: t.userId,
        apiKey: readKey({ env: t.apiKeyEnv, file: t.apiKeyFile }, `team ${t.team}`),
        projects: t.projects,
        ...shareOf(t.rateShare ?? budgetShare),
      }))
    : [
        {
          teamId: flags.team ?? process.env.VWH_TEAM ?? 'default',
          baseUrl,
          ...servicesOf(servicesBaseUrl),
          ...userOf(userId),
          apiKey: readKey(flags.keyFile ? { file: flags.keyFile } : {}, 'the sync'),
          ...shareOf(budgetShare),
        },
      ];
  if (flags.projects) for (const job of jobs) job.projects = flags.projects;
  checkSharedKeys(jobs);
  const settings: SyncSettings = {
    today,
    lookbackDays: flags.lookbackDays ?? config.lookbackDays ?? 3,
    chunkDays: config.chunkDays ?? 31,
    windowDays: flags.windowDays ?? config.windowDays ?? 30,
    topDomains: flags.topDomains ?? config.topDomains ?? 3,
    maxSourcePages: config.maxSourcePages ?? 5,
    rotationDays: flags.rotationDays ?? config.rotationDays ?? DEFAULT_ROTATION_DAYS,
    since,
    until,
  };
  if (settings.since && settings.until && settings.since > settings.until) {
    throw new VwhError('USAGE', `--since ${settings.since} is after --until ${settings.until}.`);
  }
  const onTerminal = Boolean(process.stderr.isTTY) && logger.format !== 'json';
  const progress: ProgressSink = flags.plan
    ? { plan: (p) => out.write(`${formatPlan(p)}\n`), unit() {}, wait() {}, done() {} }
    : onTerminal
      ? new TerminalProgress()
      : new LogProgress(logger);
  const memoryLimit = resolved(MemorySize, [
    ['--memory-limit', flags.memoryLimit],
    [inConfig('memoryLimit'), config.memoryLimit],
  ]);
  const threads = resolved(wholeNumber(1, 256), [
    ['--threads', flags.threads],
    [inConfig('threads'), config.threads],
  ]);
  // Conditional spreads: Warehouse.open spreads these over its defaults, which an explicit undefined would erase.
  const warehouse = await Warehouse.open(dbPath, {
    ...(memoryLimit ? { memoryLimit } : {}),
    ...(threads ? { threads } : {}),
  });
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (stop?.aborted) onSignal();
  stop?.addEventListener('abort', onSignal, { once: true });
  try {
    if (!flags.projects) await addBootstrappedProjects(warehouse.database.session, jobs, logger);
    const rateWindowMs = flags.rateWindowMs ?? config.rateWindowMs;
    const result = await syncAll(
      warehouse,
      jobs,
      {
        settings,
        streams: flags.streams ?? config.streams,
        fullRefresh: Boolean(flags.fullRefresh),
        todayFromApi: flags.today === undefined,
        planOnly: Boolean(flags.plan),
        concurrency: flags.concurrency ?? config.concurrency ?? 4,
        maxRetryAfterMs: 1000 * (flags.maxRetryAfter ?? config.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_S),
        ...maxResponseOf(
          resolved(wholeNumber(1024), [
            ['--max-response-bytes', flags.maxResponseBytes],
            [inConfig('maxResponseBytes'), config.maxResponseBytes],
          ]),
        ),
        rate: {
          windowMs: rateWindowMs,
          limit: config.rateLimit,
        },
        signal: controller.signal,
        logger,
        progress,
      },
      logger,
      progress,
    );
    if (jobs.length === 1 && result.teams[0]?.error) throw result.teams[0].error;
    for (const team of result.teams) {
      if (team.error) process.stderr.write(`vwh: team ${team.teamId}: ${team.error.message} [${team.error.code}]\n`);
      else if (team.result && !flags.plan) reportRejections(team.teamId, team.result);
    }
    return result.exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stop?.removeEventListener('abort', onSignal);
    warehouse.close();
  }
}

/**
 * Teams of one config: each its own name (it is every row's team_id), and a key shared by several teams (shards of
 * one account) split both its window and its projects. Each team syncs on a budget of its own, so together they must
 * not claim more than the whole window (rateShare summing to at most 1), or they would meet 429s; and two teams
 * syncing the same project would store it twice under two team_ids, so every figure summed over teams (the reports,
 * the lake read as one table) would count its answers twice.
 */
function checkSharedKeys(jobs: readonly TeamJob[]): void {
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.teamId)) {
      throw new VwhError(
        'CONFIG_INVALID',
        `Team ${job.teamId} is configured twice: give each entry of teams its own name (it is stored as team_id in every row).`,
      );
    }
    names.add(job.teamId);
  }
  const byKey = new Map<string, TeamJob[]>();
  for (const job of jobs) byKey.set(job.apiKey, [...(byKey.get(job.apiKey) ?? []), job]);
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    const teams = group.map((j) => j.teamId).join(', ');
    const total = group.reduce((sum, job) => sum + (job.rateShare ?? 1), 0);
    if (total > 1 + 1e-9) {
      throw new VwhError(
        'CONFIG_INVALID',
        `Teams ${teams} use the same API key: give them rateShare values that sum to ` +
          `at most 1 (now ${Math.round(total * 100) / 100}), or sync that key as one team.`,
      );
    }
    const owner = new Map<string, string>();
    for (const job of group) {
      if (!job.projects || job.projects.length === 0) {
        throw new VwhError(
          'CONFIG_INVALID',
          `Teams ${teams} use the same API key, and ${job.teamId} lists no projects, so it would sync every project ` +
            'of the key again under its own team_id (counted twice in reports): split the projects between them with ' +
            'disjoint "projects" lists, or sync that key as one team.',
        );
      }
      for (const project of job.projects) {
        const other = owner.get(project);
        if (other !== undefined && other !== job.teamId) {
          throw new VwhError(
            'CONFIG_INVALID',
            `Teams ${other} and ${job.teamId} use the same API key and both list project ${project}: it would be ` +
              'stored twice and counted twice in reports. Give it to one of them.',
          );
        }
        owner.set(project, job.teamId);
      }
    }
  }
}

function maxResponseOf(bytes: number | undefined): { maxResponseBytes?: number } {
  return bytes === undefined ? {} : { maxResponseBytes: bytes };
}

function servicesOf(url: string | undefined): { servicesBaseUrl?: string } {
  return url ? { servicesBaseUrl: url.replace(/\/+$/, '') } : {};
}

function userOf(id: string | undefined): { userId?: string } {
  return id ? { userId: id } : {};
}

function shareOf(value: number | undefined): { rateShare?: number } {
  return value !== undefined && value < 1 ? { rateShare: value } : {};
}

function reportRejections(teamId: string, result: Parameters<typeof summary>[0]): void {
  const rejected = Object.entries(result.rejectedByStream);
  if (rejected.length > 0) {
    const what = rejected.map(([stream, n]) => `${stream} ${n}`).join(', ');
    process.stderr.write(
      `vwh: team ${teamId}: rejected rows (schema drift): ${what}; see ops.rejected_rows where run_id = '${result.runId}'\n`,
    );
  }
  for (const u of result.unreachable)
    process.stderr.write(`vwh: team ${teamId}: project ${u.project} skipped: ${u.reason}\n`);
  for (const f of result.failedUnits.slice(0, 5))
    process.stderr.write(`vwh: team ${teamId}: unit ${f.unit} failed: ${f.error}\n`);
}
