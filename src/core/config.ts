/**
 * vwh.config.json: its one schema (the sync's fields, then the sections that drive the nightly job: `vwh run`,
 * `vwh schedule`, `vwh status`, alerts, `vwh events listen`), how it is read, and where a team's key comes from.
 * Every field optional, with the defaults written in each description; command-line flags win over it, it wins over
 * the defaults. Below every layer that reads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as z from 'zod';
import { ClusterSection } from './cluster-config.js';
import { DEFAULT_RESOURCES } from './defaults.js';
import { VwhError } from './errors.js';
import {
  ApiDay,
  BaseUrl,
  DbFile,
  keyFormatProblem,
  MaxRetryAfterSeconds,
  MemorySize,
  Port,
  Share,
  TeamName,
  timerMs,
  Uuid,
  WebhookSecret,
  wholeNumber,
} from './inputs.js';
import { nearestKey } from './nearest.js';
import { STREAM_NAMES } from './stream-names.js';

// a mistyped field's nearest known one (a module of their own, without zod, for the commands that load no schema)
export { editDistance, nearestKey } from './nearest.js';

const Age = z.strictObject({
  count: wholeNumber(1).describe('how many periods'),
  period: z.enum(['hour', 'day']).describe('the unit of count'),
});
export type Age = z.infer<typeof Age>;

export const ModelsSection = z.strictObject({
  dir: z.string().min(1).optional().describe('your own models folder (default: the models shipped with vwh)'),
  threads: wholeNumber(1, 32).optional().describe('models built at the same time (default 2)'),
});

export const ScheduleSection = z.strictObject({
  cron: z.string().min(1).optional().describe('cron expression, 5 or 6 fields (default "30 2 * * *": nightly)'),
  timezone: z.string().min(1).optional().describe('IANA time zone of the expression (default UTC)'),
  catchUp: z
    .enum(['latest', 'skip'])
    .optional()
    .describe('a missed run (machine off or asleep): run once now (latest, default) or wait for the next (skip)'),
  staleLockMinutes: wholeNumber(1)
    .optional()
    .describe('a lock file older than this from another host is stale (default 720); same host: its PID is checked'),
});

const ParquetExport = z.strictObject({
  outDir: z.string().min(1).describe('the lake folder (Hive-partitioned Parquet)'),
  raw: z.boolean().optional().describe('also export the raw.* tables (default false)'),
  staging: z.boolean().optional().describe('also export the staging.* tables (default false)'),
  tables: z.array(z.string()).optional().describe('only these tables (default: every mart)'),
});
const ArrowExport = z.strictObject({
  outDir: z.string().min(1).describe('folder of the Arrow IPC (Feather v2) files, one per mart'),
  tables: z.array(z.string()).optional().describe('only these tables (default: every mart)'),
});

const HtmlExport = z.strictObject({
  out: z.string().min(1).describe('the self-contained HTML report file'),
  projectId: z.string().min(1).optional().describe('one project (default: every project)'),
});

export const ExportsSection = z.strictObject({
  parquet: ParquetExport.optional().describe('default: {"outDir": "lake/ beside the warehouse"}'),
  arrow: ArrowExport.optional().describe('default: none'),
  html: HtmlExport.optional().describe('default: {"out": "reports/report.html beside the warehouse"}'),
});
export type ExportsSection = z.infer<typeof ExportsSection>;

export const PublishSection = z.strictObject({
  enabled: z.boolean().optional().describe('publish a read-only copy after a successful run (default true)'),
  path: z.string().min(1).optional().describe('the published copy (default: published/<db file> beside the db)'),
});

export const AlertsSection = z.strictObject({
  url: BaseUrl.optional().describe('POST a JSON summary here, signed in X-VWH-Signature (hex HMAC-SHA256)'),
  secretEnv: z
    .string()
    .min(1)
    .optional()
    .describe('environment variable holding the signing secret (default VWH_ALERT_SECRET)'),
  command: z.string().min(1).optional().describe('shell command run with the JSON summary on stdin'),
  suppressMinutes: wholeNumber(0)
    .optional()
    .describe('the same alert is not repeated within this interval (default 360)'),
  timeoutMs: timerMs(1).optional().describe('timeout of the POST and of the command (default 10000)'),
});

export const FreshnessSection = z.strictObject({
  warn_after: Age.optional().describe('default {"count": 2, "period": "day"}'),
  error_after: Age.optional().describe('default {"count": 4, "period": "day"}'),
});

export const EventsSection = z.strictObject({
  port: Port.optional().describe('port of vwh events listen (default 8788)'),
  host: z.string().min(1).optional().describe('interface to listen on (default 127.0.0.1)'),
  secrets: z
    .array(WebhookSecret)
    .optional()
    .describe('webhook secrets accepted (several during a rotation); also --secret and VWH_WEBHOOK_SECRETS'),
  journalDir: z
    .string()
    .min(1)
    .optional()
    .describe('append-only journal the next run ingests (default: events/ beside the db)'),
  maxBodyBytes: wholeNumber(1).optional().describe('larger deliveries are refused with 413 (default 1048576)'),
  maxAgeHours: wholeNumber(1, 8760)
    .optional()
    .describe('a signed delivery whose timestamp is further than this from now is refused with 422 (default 24)'),
});

/** The nightly job's sections, spread into the config schema. */
export const opsSections = {
  models: ModelsSection.optional().describe('the models vwh run and vwh models build (dbt-like-models/)'),
  schedule: ScheduleSection.optional().describe('when vwh schedule runs the nightly job'),
  exports: ExportsSection.optional().describe(
    "vwh run's exports stage (default: the Parquet lake and the HTML report)",
  ),
  publish: PublishSection.optional().describe('the read-only copy BI tools open'),
  alerts: AlertsSection.optional().describe("where vwh run's alerts go (default: none, the alerts stage only records)"),
  freshness: FreshnessSection.optional().describe('when vwh status calls a stream stale'),
  events: EventsSection.optional().describe('vwh events listen, the webhook receiver'),
  cluster: ClusterSection.optional().describe(
    'several machines sharing the teams through PostgreSQL (docs/cluster.md); absent: this machine alone',
  ),
};

export const DEFAULT_CRON = '30 2 * * *';
export const DEFAULT_FRESHNESS = {
  warn_after: { count: 2, period: 'day' } as Age,
  error_after: { count: 4, period: 'day' } as Age,
};

export function ageMs(age: Age): number {
  return age.count * (age.period === 'hour' ? 3_600_000 : 86_400_000);
}

/** One key (one team) to sync. The key itself never sits in the config: an environment variable or a file names it. */
export const TeamConfig = z.strictObject({
  team: TeamName.describe('team name stored in every row (team_id) and a folder of the lake: letters, digits, _ . : -'),
  apiKeyEnv: z.string().min(1).optional().describe('environment variable holding the API key'),
  apiKeyFile: z.string().min(1).optional().describe('file holding the API key (first line)'),
  baseUrl: BaseUrl.optional().describe('API base URL for this key (default: the top-level baseUrl)'),
  servicesBaseUrl: BaseUrl.optional().describe(
    'base URL of the content and team services for this key (default: the top-level servicesBaseUrl)',
  ),
  userId: Uuid.optional().describe('user id the team service answers for (team_members; default: none, skipped)'),
  projects: z.array(z.string()).optional().describe('project ids or names to sync (default: all)'),
  rateShare: Share.optional().describe(
    'part of this key rate window this sync may use (default: the top-level budgetShare)',
  ),
});
export type TeamConfig = z.infer<typeof TeamConfig>;

/** vwh.config.json. Every field optional; command-line flags win over it, it wins over the defaults. */
export const SyncConfig = z.strictObject({
  $schema: z.string().optional(),
  db: DbFile.optional().describe('DuckDB file (default data/warehouse.duckdb)'),
  logFormat: z
    .enum(['human', 'json'])
    .optional()
    .describe(
      'output of every command: human (default) or json, one JSON object per line (VWH_LOG_FORMAT, --log-format)',
    ),
  baseUrl: BaseUrl.optional().describe('API base URL, scheme://host[:port] (VWH_BASE_URL)'),
  servicesBaseUrl: BaseUrl.optional().describe(
    'base URL of the content-generation and team services, /api/v1 and /api/v2 (default: baseUrl)',
  ),
  userId: Uuid.optional().describe('single-key runs: user id the team service answers for (team_members)'),
  budgetShare: Share.optional().describe(
    'part of each key rate window this sync may use, leaving the rest to other users (default 1)',
  ),
  teams: z.array(TeamConfig).min(1).optional().describe('several keys synced in parallel, each on its own budget'),
  streams: z
    .array(z.enum(STREAM_NAMES as [string, ...string[]]))
    .optional()
    .describe('only these streams (default: every stream)'),
  lookbackDays: wholeNumber(0, 60).optional().describe('recent days re-fetched every sync (default 3)'),
  chunkDays: wholeNumber(1, 366).optional().describe('largest day range of one request (default 31)'),
  windowDays: wholeNumber(1, 366).optional().describe('window of window-grain streams (default 30)'),
  topDomains: wholeNumber(0, 100)
    .optional()
    .describe('domains per project for source_details/source_chats (default 3)'),
  maxSourcePages: wholeNumber(1, 1000).optional().describe('page cap per domain for those streams (default 5)'),
  concurrency: wholeNumber(1, 32).optional().describe('requests in flight per key (default 4)'),
  rateWindowMs: timerMs(1).optional().describe('rate window length (default 60000)'),
  rateLimit: wholeNumber(1).optional().describe('requests per window (default 70, learnt from X-RateLimit-Limit)'),
  since: ApiDay.optional().describe(
    'first day of day-partitioned streams, YYYY-MM-DD (default: each prompt creation day)',
  ),
  maxRetryAfterSeconds: MaxRetryAfterSeconds.optional().describe(
    'longest Retry-After waited for; a longer one fails its unit, fetched again next run (default 300)',
  ),
  memoryLimit: MemorySize.optional().describe(
    `DuckDB memory_limit: beyond it DuckDB spills to disk (default ${DEFAULT_RESOURCES.memoryLimit})`,
  ),
  threads: wholeNumber(1, 256).optional().describe(`DuckDB threads (default ${DEFAULT_RESOURCES.threads})`),
  maxResponseBytes: wholeNumber(1024)
    .optional()
    .describe('largest response body read; a larger one fails its unit (default 64 MiB)'),
  rotationDays: wholeNumber(1, 31)
    .optional()
    .describe(
      'streams derivable from chats (prompt_metrics_daily, prompt_domains, prompt_urls) are refreshed for each prompt once every this many nights, spread evenly; 1 = every night (default 7)',
    ),
  ...opsSections,
});
export type SyncConfig = z.infer<typeof SyncConfig>;

/** The JSON Schema for editors (`vwh sync --config-schema > vwh.config.schema.json`). */
export function configJsonSchema(): unknown {
  return z.toJSONSchema(SyncConfig, { io: 'input' });
}

/** Reads and validates a config file; a missing default file is an empty config, a missing named file an error. */
export function loadConfig(path: string | undefined): SyncConfig {
  const file = path ?? 'vwh.config.json';
  if (!existsSync(file)) {
    if (path) throw new VwhError('CONFIG_INVALID', `Config file ${file} does not exist.`);
    return {};
  }
  let json: unknown;
  const text = readFileSync(file, 'utf8');
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new VwhError('CONFIG_INVALID', `Config file ${file} is not valid JSON: ${whereInJson(text, error as Error)}`);
  }
  const parsed = SyncConfig.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(describeIssue).join('; ');
    throw new VwhError('CONFIG_INVALID', `Config file ${file} is invalid: ${issues}. ${CONFIG_REFERENCE}`);
  }
  return parsed.data;
}

/** JSON.parse's message with the line and column of its `position` (`at line 3, column 5`), as an editor shows it. */
export function whereInJson(text: string, error: Error): string {
  const position = Number(/at position (\d+)/.exec(error.message)?.[1] ?? Number.NaN);
  if (!Number.isFinite(position) || /line \d+/.test(error.message)) return error.message;
  const before = text.slice(0, position).split('\n');
  const line = before.length;
  const column = (before.at(-1)?.length ?? 0) + 1;
  return `${error.message.replace(/ in JSON at position \d+.*$/, '')} at line ${line}, column ${column}`;
}

/** Where every field of the config is listed, with its type, default and meaning (generated from SyncConfig). */
export const CONFIG_REFERENCE = 'Every field, its type and default: docs/config.md (or vwh config schema).';

/**
 * An issue of the schema as a person fixes it: the field, the problem, what a valid value looks like (the field's
 * description), and for an unknown field the nearest known one. zod's own words for a missing field
 * (`Invalid input: expected string, received undefined`) say neither that it is missing nor what it is for.
 */
function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.join('.') || '(root)';
  // zod does not keep the input on the issue: a missing field is the type error that received undefined
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
    const about = fieldAt(issue.path)?.description;
    return `${where} is missing: a ${issue.expected} is required here${about ? ` (${about})` : ''}`;
  }
  if (issue.code !== 'unrecognized_keys') {
    const about = fieldAt(issue.path)?.description;
    return `${where}: ${issue.message}${about ? ` (${where}: ${about})` : ''}`;
  }
  const known = knownKeys(issue.path);
  return issue.keys
    .map((key) => {
      const near = nearestKey(key, known);
      return `${issue.path.length ? `${where}: ` : ''}unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ''}`;
    })
    .join('; ');
}

/** The fields the schema knows at `path` (objects only; the top level and the sections). */
function knownKeys(path: readonly PropertyKey[]): string[] {
  return Object.keys((unwrap(fieldAt(path)) as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
}

/** The schema of the field at `path` (a number steps into an array), as declared: its description is on it. */
function fieldAt(path: readonly PropertyKey[]): { description?: string } | undefined {
  let schema: unknown = SyncConfig;
  for (const part of path) {
    // an index: unwrap() below steps into the array's element
    if (typeof part === 'number') continue;
    schema = (unwrap(schema) as { shape?: Record<string, unknown> } | undefined)?.shape?.[String(part)];
    if (!schema) return undefined;
  }
  return schema as { description?: string };
}

/** An optional's or an array's inner schema, down to an object (or the first schema that wraps nothing). */
function unwrap(schema: unknown): unknown {
  let next = schema;
  for (let i = 0; i < 3 && next && !(next as { shape?: unknown }).shape; i++) {
    const def = (next as { def?: { innerType?: unknown; element?: unknown } }).def;
    if (!def?.innerType && !def?.element) break;
    next = def.innerType ?? def.element;
  }
  return next;
}

/** The key of a team: its env variable, its file, or (single-team runs) VWH_API_KEY / --key-file. */
export function readKey(source: { env?: string; file?: string }, what: string): string {
  if (source.file) {
    if (!existsSync(source.file))
      throw new VwhError('AUTH_MISSING_KEY', `Key file ${source.file} for ${what} does not exist.`);
    const key = readFileSync(source.file, 'utf8').split(/\r?\n/)[0]?.trim() ?? '';
    if (key) return wellFormedKey(key, `Key file ${source.file}`);
    throw new VwhError('AUTH_MISSING_KEY', `Key file ${source.file} for ${what} is empty.`);
  }
  const name = source.env ?? 'VWH_API_KEY';
  const key = process.env[name]?.trim();
  if (key) return wellFormedKey(key, name);
  throw new VwhError(
    'AUTH_MISSING_KEY',
    `No API key for ${what}: set ${name} (or give --key-file / apiKeyFile in vwh.config.json).`,
  );
}

/** `key` when it can be sent as a header; else USAGE saying where it came from and what is wrong, never the key. */
function wellFormedKey(key: string, where: string): string {
  const problem = keyFormatProblem(key);
  if (problem) throw new VwhError('USAGE', `The API key in ${where} ${problem}.`);
  return key;
}
