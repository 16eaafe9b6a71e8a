/**
 * The sections of vwh.config.json that drive the nightly job (`vwh run`, `vwh schedule`, `vwh status`, alerts,
 * `vwh events listen`). Composed into the one config schema in src/extract/config.ts; every field optional, with
 * the defaults written in each description and applied by the `*Of` helpers below.
 */
import * as z from 'zod';
import { BaseUrl, Port, wholeNumber } from '../core/inputs.js';

const Age = z.strictObject({
  count: wholeNumber(1),
  period: z.enum(['hour', 'day']),
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
  raw: z.boolean().optional(),
  staging: z.boolean().optional(),
  tables: z.array(z.string()).optional(),
});
const ArrowExport = z.strictObject({
  outDir: z.string().min(1).describe('folder of the Arrow IPC (Feather v2) files, one per mart'),
  tables: z.array(z.string()).optional(),
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
  timeoutMs: wholeNumber(1).optional().describe('timeout of the POST and of the command (default 10000)'),
});

export const FreshnessSection = z.strictObject({
  warn_after: Age.optional().describe('default {"count": 2, "period": "day"}'),
  error_after: Age.optional().describe('default {"count": 4, "period": "day"}'),
});

export const EventsSection = z.strictObject({
  port: Port.optional().describe('port of vwh events listen (default 8788)'),
  host: z.string().min(1).optional().describe('interface to listen on (default 127.0.0.1)'),
  secrets: z
    .array(z.string().min(16))
    .optional()
    .describe('webhook secrets accepted (several during a rotation); also --secret and VWH_WEBHOOK_SECRETS'),
  journalDir: z
    .string()
    .min(1)
    .optional()
    .describe('append-only journal the next run ingests (default: events/ beside the db)'),
  maxBodyBytes: wholeNumber(1).optional().describe('larger deliveries are refused with 413 (default 1048576)'),
});

/** The nightly job's sections, spread into the config schema. */
export const opsSections = {
  models: ModelsSection.optional(),
  schedule: ScheduleSection.optional(),
  exports: ExportsSection.optional(),
  publish: PublishSection.optional(),
  alerts: AlertsSection.optional(),
  freshness: FreshnessSection.optional(),
  events: EventsSection.optional(),
};

export const DEFAULT_CRON = '30 2 * * *';
export const DEFAULT_FRESHNESS = {
  warn_after: { count: 2, period: 'day' } as Age,
  error_after: { count: 4, period: 'day' } as Age,
};

export function ageMs(age: Age): number {
  return age.count * (age.period === 'hour' ? 3_600_000 : 86_400_000);
}
