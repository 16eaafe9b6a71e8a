/**
 * The cluster's PostgreSQL: one check that it answers (a clear error, the URL without its password, before anything
 * is written), pg-boss started on it, the night queue created, and the fleet's own tables (schema.ts). pg and
 * pg-boss are imported here only, when a command runs in cluster mode: a single-machine start never loads them.
 */
import type { Pool } from 'pg';
import type PgBoss from 'pg-boss';
import { type ClusterSettings, redactUrl } from '../../core/cluster-config.js';
import { redact, VwhError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { CLUSTER_DDL } from './schema.js';

/** The queue of the teams' nights: one job per team and night, at most one active per team (pg-boss's stately). */
export const NIGHT_QUEUE = 'vwh-night';
/** pg-boss's own tables. */
export const BOSS_SCHEMA = 'pgboss';
const CONNECT_TIMEOUT_MS = 10_000;

export interface Cluster {
  settings: ClusterSettings;
  /** Our tables (vwh.*) and the queue's, read and written in plain SQL. */
  pool: Pool;
  boss: PgBoss;
  close(): Promise<void>;
}

export interface OpenOptions {
  logger: Logger;
  /** Expire abandoned jobs and archive old ones (workers do; `vwh run` and `vwh status` need not). */
  supervise?: boolean;
}

/** Connects, or throws CLUSTER_UNREACHABLE naming the server (never its password) and what to check. */
export async function openCluster(settings: ClusterSettings, options: OpenOptions): Promise<Cluster> {
  const { default: pg } = await import('pg');
  const { default: PgBossClass } = await import('pg-boss');
  const probe = new pg.Client({ connectionString: settings.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.query('select 1');
  } catch (error) {
    throw unreachable(settings.url, error);
  } finally {
    await probe.end().catch(() => {});
  }
  const pool = new pg.Pool({ connectionString: settings.url, max: 4, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // an idle client whose server went away (a restart): the pool drops it and the next query reconnects
  pool.on('error', (error) =>
    options.logger.warn('cluster: a PostgreSQL connection closed', { error: redact(error.message) }),
  );
  await ensureSchema(pool);
  const boss = new PgBossClass({
    connectionString: settings.url,
    schema: BOSS_SCHEMA,
    max: 4,
    application_name: 'vwh',
    supervise: options.supervise ?? false,
    schedule: false,
    maintenanceIntervalSeconds: settings.maintenanceSeconds,
    monitorStateIntervalSeconds: Math.max(settings.maintenanceSeconds, 10),
  });
  boss.on('error', (error: Error) => options.logger.warn('cluster: queue error', { error: redact(error.message) }));
  await boss.start();
  if (!(await boss.getQueue(NIGHT_QUEUE))) {
    try {
      await boss.createQueue(NIGHT_QUEUE, {
        name: NIGHT_QUEUE,
        policy: 'stately',
        retryLimit: settings.retryLimit,
        retryDelay: settings.retryDelaySeconds,
        expireInSeconds: settings.leaseSeconds,
      });
    } catch (error) {
      // another process created it first
      if (!(await boss.getQueue(NIGHT_QUEUE))) throw error;
    }
  }
  return {
    settings,
    pool,
    boss,
    async close() {
      await boss.stop({ graceful: false, wait: true, close: true }).catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

/** Our tables, created once by whichever process comes first (an advisory lock serialises the DDL). */
async function ensureSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(hashtext('vwh-cluster-schema'))`);
    await client.query(CLUSTER_DDL);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export function unreachable(url: string, error: unknown): VwhError {
  const why = redact((error as Error)?.message ?? String(error));
  return new VwhError(
    'CLUSTER_UNREACHABLE',
    `Cannot reach the cluster's PostgreSQL at ${redactUrl(url)}: ${why}. Check cluster.url (or VWH_CLUSTER_URL), that the server is up and accepts this user; nothing was written.`,
  );
}

/** True for errors that a reconnect cures (the server restarting, a dropped connection), worth retrying. */
export function transient(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (e?.code && /^(08|57P0[123]|53300|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)/.test(e.code)) return true;
  return /Connection terminated|ECONNREFUSED|ECONNRESET|timeout exceeded|terminating connection|the database system is (starting|shutting) up|Client has encountered a connection error/i.test(
    e?.message ?? '',
  );
}

/** Runs `fn` again while the server is unreachable, up to `forMs`; the last error otherwise. */
export async function retrying<T>(fn: () => Promise<T>, forMs: number, logger: Logger, what: string): Promise<T> {
  const until = Date.now() + forMs;
  for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await fn();
    } catch (error) {
      if (!transient(error) || Date.now() + wait > until) throw error;
      logger.warn(`cluster: ${what}: PostgreSQL unreachable, retrying`, { error: redact((error as Error).message) });
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
