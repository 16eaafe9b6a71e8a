/**
 * The config's `cluster` section (docs/cluster.md): where the fleet's PostgreSQL is and the shared folder of the
 * teams' warehouses, plus the queue's timings. Its presence switches `vwh run`, `vwh schedule` and `vwh status` to
 * the cluster; without it nothing here is read and no PostgreSQL is needed. The connection string's password never
 * leaves the process: `redactUrl` is what any message, log or status shows of it.
 */
import * as z from 'zod';
import { registerSecret, VwhError } from './errors.js';
import { wholeNumber } from './inputs.js';

/** Where the URL comes from when the config has none (so the password can stay out of the file). */
export const CLUSTER_URL_ENV = 'VWH_CLUSTER_URL';
/** This machine's mount point of the shared folder, when it is not the config's dataDir. */
export const CLUSTER_DATA_DIR_ENV = 'VWH_CLUSTER_DATA_DIR';

/** A PostgreSQL connection string as libpq and node-postgres read it. */
export const PostgresUrl = z.string().refine(isPostgresUrl, {
  message: 'must be a PostgreSQL URL such as postgres://vwh@db.internal:5432/vwh',
});

export const ClusterSection = z.strictObject({
  url: PostgresUrl.optional().describe(`PostgreSQL connection string (default: the ${CLUSTER_URL_ENV} variable)`),
  dataDir: z
    .string()
    .min(1)
    .describe('shared folder of every team: <dataDir>/teams/<team>/warehouse.duckdb, its published copy, the lake'),
  leaseSeconds: wholeNumber(5, 3600)
    .optional()
    .describe("a worker's hold on a job, renewed by its heartbeat; a dead worker's job is free after it (default 60)"),
  heartbeatSeconds: wholeNumber(1, 600)
    .optional()
    .describe('how often a worker renews its lease and says it is alive (default 15; under leaseSeconds / 2)'),
  retryLimit: wholeNumber(0, 100).optional().describe("times a team's failed or abandoned job is retried (default 3)"),
  retryDelaySeconds: wholeNumber(0, 86_400).optional().describe('wait before a retry (default 5)'),
  maintenanceSeconds: wholeNumber(1, 3600)
    .optional()
    .describe("how often the queue looks for expired leases (default 30; the takeover's bound adds it)"),
  pollSeconds: z.number().min(0.5).max(60).optional().describe('how often an idle worker asks for a job (default 2)'),
});
export type ClusterSection = z.infer<typeof ClusterSection>;

/** The section with its defaults and the URL resolved (the config's, else VWH_CLUSTER_URL). */
export interface ClusterSettings {
  url: string;
  dataDir: string;
  leaseSeconds: number;
  heartbeatSeconds: number;
  retryLimit: number;
  retryDelaySeconds: number;
  maintenanceSeconds: number;
  pollSeconds: number;
}

export const CLUSTER_DEFAULTS = {
  leaseSeconds: 60,
  heartbeatSeconds: 15,
  retryLimit: 3,
  retryDelaySeconds: 5,
  maintenanceSeconds: 30,
  pollSeconds: 2,
} as const;

export function isPostgresUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && (url.hostname !== '' || url.search !== '')
    );
  } catch {
    return false;
  }
}

/** The URL with its password (and a `password=` parameter) replaced by `***`: what messages and status show. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString();
  } catch {
    // not a URL: any `user:password@` in it still goes
    return text.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');
  }
}

/** The password of a connection string, to register as a secret (errors.ts redact). */
export function urlPassword(text: string): string | undefined {
  try {
    const url = new URL(text);
    return decodeURIComponent(url.password) || url.searchParams.get('password') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cluster's settings, or undefined when the config has no `cluster` section (single-machine mode). A section
 * without a URL takes VWH_CLUSTER_URL; neither, or a heartbeat too slow for its lease, is a config error.
 */
export function clusterSettings(
  section: ClusterSection | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ClusterSettings | undefined {
  if (!section) return undefined;
  const fromEnv = env[CLUSTER_URL_ENV]?.trim();
  const url = section.url ?? fromEnv;
  if (!url) {
    throw new VwhError(
      'CONFIG_INVALID',
      `cluster.url: no PostgreSQL URL: set cluster.url in the config or the ${CLUSTER_URL_ENV} variable.`,
    );
  }
  if (!section.url && !isPostgresUrl(url)) {
    throw new VwhError('CONFIG_INVALID', `${CLUSTER_URL_ENV}: ${PostgresUrl.safeParse('').error?.issues[0]?.message}`);
  }
  registerSecret(urlPassword(url));
  const settings: ClusterSettings = {
    ...CLUSTER_DEFAULTS,
    ...definedOnly(section),
    url,
    dataDir: env[CLUSTER_DATA_DIR_ENV]?.trim() || section.dataDir,
  };
  if (settings.heartbeatSeconds * 2 > settings.leaseSeconds) {
    throw new VwhError(
      'CONFIG_INVALID',
      `cluster.heartbeatSeconds (${settings.heartbeatSeconds}) must be at most half of cluster.leaseSeconds (${settings.leaseSeconds}), or a live worker's lease could lapse between two heartbeats.`,
    );
  }
  return settings;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
