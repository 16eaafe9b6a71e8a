/**
 * The sync as `vwh sync` and the nightly job's sync stage run it: options (flags, or what the job hands over) over
 * environment variables over vwh.config.json over the defaults, one job per key, the shared-key checks, the
 * warehouse opened with its resources, SIGINT/SIGTERM and a caller's stop, and every team synced. It returns the
 * exit code, each team's result and the run's counts; what to print of them is the caller's.
 */
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../client/retry-after.js';
import { loadConfig, readKey, type SyncConfig } from '../core/config.js';
import { msToDay } from '../core/days.js';
import { DEFAULT_DB_PATH } from '../core/defaults.js';
import { VwhError } from '../core/errors.js';
import { ApiDay, BaseUrl, DbFile, MemorySize, resolved, Share, TeamName, Uuid, wholeNumber } from '../core/inputs.js';
import { createLogger, jsonLine, type LogFormat } from '../core/log.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { type MultiSyncResult, syncAll, type TeamJob } from './all-teams.js';
import { addBootstrappedProjects } from './bootstrapped.js';
import { formatPlan, LogProgress, type ProgressSink, TerminalProgress } from './progress.js';
import { DEFAULT_ROTATION_DAYS, type SyncSettings } from './types.js';

/** What a sync is asked to do; each field overrides its environment variable and its field in the config. */
export interface SyncOptions {
  db?: string;
  config?: string;
  /** Print the request plan (to `out`) and stop. */
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
  /** The end of a team's sync lists the rows landed per table (default); false: their total only (vwh run). */
  rowsPerTable?: boolean;
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
}

export interface SyncIo {
  /** Where the plan is printed (`plan`); default stdout. */
  out?: NodeJS.WritableStream;
  /** A caller's stop (the nightly job's SIGTERM): the sync stops as on SIGINT, its unit in hand committed. */
  stop?: AbortSignal;
  /** The caller's run id (the nightly job's): every team's ops.sync_runs row and landed row carries it. */
  runId?: string;
}

/** The run's figures, summed over the teams that started a run (each a row of ops.sync_runs). */
export interface SyncCounts {
  teams: number;
  requests: number;
  units: number;
  rejected_rows: number;
  throttled_429: number;
  /** What the plans estimated (discovery included) and the units they planned. */
  requests_planned: number;
  units_planned: number;
  /** Rows landed per table (`raw.chats` → n). */
  rows: Record<string, number>;
}

export interface SyncOutcome extends MultiSyncResult {
  counts: SyncCounts;
}

const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

/** What `vwh sync` does when neither a flag, the environment nor the config says otherwise. */
export const SYNC_DEFAULTS = {
  lookbackDays: 3,
  chunkDays: 31,
  windowDays: 30,
  topDomains: 3,
  maxSourcePages: 5,
  rotationDays: DEFAULT_ROTATION_DAYS,
  /** Units in flight at once. */
  concurrency: 4,
} as const satisfies Omit<SyncSettings, 'today' | 'since' | 'until'> & { concurrency: number };
const DEFAULT_MAX_RETRY_AFTER_S = DEFAULT_MAX_RETRY_AFTER_MS / 1000;

/** The API's `{base_url}`: scheme, host and port (a trailing /api/public/v1 is tolerated and removed). */
export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/api\/public\/v1$/, '');
}

/**
 * Runs the sync. Throws VwhError for usage, config, auth and lock errors (a single team's error included); a team of
 * several that fails is in the outcome and its exit code.
 */
export async function runSync(options: SyncOptions, io: SyncIo = {}): Promise<SyncOutcome> {
  const out = io.out ?? process.stdout;
  const config = loadConfig(options.config);
  const logger = createLogger(options.logFormat ? { format: options.logFormat } : {});
  const { dbPath, jobs, settings, memoryLimit, threads } = resolveSync(options, config);
  const onTerminal = Boolean(process.stderr.isTTY) && logger.format !== 'json';
  const progress: ProgressSink = options.plan
    ? {
        plan: (p) =>
          out.write(logger.format === 'json' ? jsonLine('info', 'sync plan', { ...p }) : `${formatPlan(p)}\n`),
        unit() {},
        wait() {},
        done() {},
      }
    : onTerminal
      ? new TerminalProgress(process.stderr, Date.now, options.rowsPerTable)
      : new LogProgress(logger, options.rowsPerTable);
  // Conditional spreads: Warehouse.open spreads these over its defaults, which an explicit undefined would erase.
  const warehouse = await Warehouse.open(dbPath, {
    ...(memoryLimit ? { memoryLimit } : {}),
    ...(threads ? { threads } : {}),
  });
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (io.stop?.aborted) onSignal();
  io.stop?.addEventListener('abort', onSignal, { once: true });
  try {
    if (!options.projects) await addBootstrappedProjects(warehouse.database.session, jobs, logger);
    const inConfig = configField(options);
    const result = await syncAll(
      warehouse,
      jobs,
      {
        settings,
        ...(io.runId ? { runId: io.runId } : {}),
        streams: options.streams ?? config.streams,
        fullRefresh: Boolean(options.fullRefresh),
        todayFromApi: options.today === undefined,
        planOnly: Boolean(options.plan),
        concurrency: options.concurrency ?? config.concurrency ?? SYNC_DEFAULTS.concurrency,
        maxRetryAfterMs: 1000 * (options.maxRetryAfter ?? config.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_S),
        maxResponseBytes: resolved(wholeNumber(1024), [
          ['--max-response-bytes', options.maxResponseBytes],
          [inConfig('maxResponseBytes'), config.maxResponseBytes],
        ]),
        rate: {
          windowMs: options.rateWindowMs ?? config.rateWindowMs,
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
    return { ...result, counts: countsOf(result) };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    io.stop?.removeEventListener('abort', onSignal);
    warehouse.close();
  }
}

/** What a user should see of an outcome beyond the logs: failed teams, rejected rows, skipped projects, failed units. */
export function syncProblems(outcome: MultiSyncResult, planOnly = false): string[] {
  const lines: string[] = [];
  for (const { teamId, error, result } of outcome.teams) {
    if (error) {
      lines.push(`vwh: team ${teamId}: ${error.message} [${error.code}]`);
      continue;
    }
    if (!result || planOnly) continue;
    const rejected = Object.entries(result.rejectedByStream);
    if (rejected.length > 0) {
      const what = rejected.map(([stream, n]) => `${stream} ${n}`).join(', ');
      lines.push(
        `vwh: team ${teamId}: rejected rows (schema drift): ${what}; see ops.rejected_rows where run_id = '${result.runId}'`,
      );
    }
    for (const u of result.unreachable) lines.push(`vwh: team ${teamId}: project ${u.project} skipped: ${u.reason}`);
    for (const f of result.failedUnits.slice(0, 5))
      lines.push(`vwh: team ${teamId}: unit ${f.unit} failed: ${f.error}${f.code ? ` [${f.code}]` : ''}`);
    if (result.status === 'failed' && result.failedUnits.length > 0) {
      const n = result.failedUnits.length;
      lines.push(
        `vwh: team ${teamId}: ${n} unit${n === 1 ? '' : 's'} failed (each unit that succeeded landed); the next sync ` +
          'fetches the failed ones again [UNITS_FAILED]',
      );
    }
  }
  return lines;
}

function countsOf(result: MultiSyncResult): SyncCounts {
  const counts: SyncCounts = {
    teams: 0,
    requests: 0,
    units: 0,
    rejected_rows: 0,
    throttled_429: 0,
    requests_planned: 0,
    units_planned: 0,
    rows: {},
  };
  for (const { result: team } of result.teams) {
    if (team?.runId === undefined) continue;
    counts.teams++;
    counts.requests += team.counters.requests;
    counts.units += team.counters.unitsDone;
    counts.rejected_rows += team.counters.rejectedRows;
    counts.throttled_429 += team.counters.throttled429;
    counts.requests_planned += team.plan?.requests ?? 0;
    counts.units_planned += team.counters.unitsPlanned;
    for (const [table, n] of Object.entries(team.counters.rowsPerTable ?? {}))
      counts.rows[table] = (counts.rows[table] ?? 0) + n;
  }
  return counts;
}

function configField(options: SyncOptions): (field: string) => string {
  return (field) => `${field} in ${options.config ?? 'vwh.config.json'}`;
}

/**
 * Options, environment and config resolved into the warehouse, the jobs (one per key) and the settings. Options
 * reach here from commander or straight from callers, and environment variables from cron scripts: every value is
 * checked once more with the same schema, under the name of where it came from.
 */
function resolveSync(options: SyncOptions, config: SyncConfig) {
  const inConfig = configField(options);
  const baseUrl = normalizeBaseUrl(
    resolved(
      BaseUrl,
      [
        ['--base-url', options.baseUrl],
        ['VWH_BASE_URL', process.env.VWH_BASE_URL],
        [inConfig('baseUrl'), config.baseUrl],
      ],
      DEFAULT_BASE_URL,
    ) as string,
  );
  const servicesBaseUrl = resolved(BaseUrl, [
    ['--services-base-url', options.servicesBaseUrl],
    ['VWH_SERVICES_BASE_URL', process.env.VWH_SERVICES_BASE_URL],
    [inConfig('servicesBaseUrl'), config.servicesBaseUrl],
  ]);
  const userId = resolved(Uuid, [
    ['--user-id', options.userId],
    ['VWH_USER_ID', process.env.VWH_USER_ID || undefined],
    [inConfig('userId'), config.userId],
  ]);
  const budgetShare = resolved(Share, [
    ['--budget-share', options.budgetShare],
    [inConfig('budgetShare'), config.budgetShare],
  ]);
  const dbPath = resolved(
    DbFile,
    [
      ['--db', options.db],
      [inConfig('db'), config.db],
    ],
    DEFAULT_DB_PATH,
  ) as string;
  const since = resolved(ApiDay, [
    ['--since', options.since],
    [inConfig('since'), config.since],
  ]);
  const until = resolved(ApiDay, [['--until', options.until]]);
  const today = resolved(ApiDay, [['--today', options.today]], msToDay(Date.now())) as string;
  const jobs: TeamJob[] = config.teams
    ? config.teams.map((t) => ({
        teamId: t.team,
        baseUrl: normalizeBaseUrl(t.baseUrl ?? baseUrl),
        servicesBaseUrl: withoutTrailingSlash(t.servicesBaseUrl ?? servicesBaseUrl),
        userId: t.userId,
        apiKey: readKey({ env: t.apiKeyEnv, file: t.apiKeyFile }, `team ${t.team}`),
        projects: t.projects,
        rateShare: t.rateShare ?? budgetShare,
      }))
    : [
        {
          teamId: resolved(
            TeamName,
            [
              ['--team', options.team],
              ['VWH_TEAM', process.env.VWH_TEAM || undefined],
            ],
            'default',
          ) as string,
          baseUrl,
          servicesBaseUrl: withoutTrailingSlash(servicesBaseUrl),
          userId,
          apiKey: readKey(options.keyFile ? { file: options.keyFile } : {}, 'the sync'),
          rateShare: budgetShare,
        },
      ];
  if (options.projects) for (const job of jobs) job.projects = options.projects;
  checkSharedKeys(jobs);
  const settings: SyncSettings = {
    today,
    lookbackDays: options.lookbackDays ?? config.lookbackDays ?? SYNC_DEFAULTS.lookbackDays,
    chunkDays: config.chunkDays ?? SYNC_DEFAULTS.chunkDays,
    windowDays: options.windowDays ?? config.windowDays ?? SYNC_DEFAULTS.windowDays,
    topDomains: options.topDomains ?? config.topDomains ?? SYNC_DEFAULTS.topDomains,
    maxSourcePages: config.maxSourcePages ?? SYNC_DEFAULTS.maxSourcePages,
    rotationDays: options.rotationDays ?? config.rotationDays ?? SYNC_DEFAULTS.rotationDays,
    since,
    until,
  };
  if (settings.since && settings.until && settings.since > settings.until) {
    throw new VwhError('USAGE', `--since ${settings.since} is after --until ${settings.until}.`);
  }
  const memoryLimit = resolved(MemorySize, [
    ['--memory-limit', options.memoryLimit],
    [inConfig('memoryLimit'), config.memoryLimit],
  ]);
  const threads = resolved(wholeNumber(1, 256), [
    ['--threads', options.threads],
    [inConfig('threads'), config.threads],
  ]);
  return { dbPath, jobs, settings, memoryLimit, threads };
}

function withoutTrailingSlash(url: string | undefined): string | undefined {
  return url?.replace(/\/+$/, '');
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
