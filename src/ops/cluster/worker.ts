/**
 * `vwh worker`: takes teams' nights from the queue, `concurrency` at a time, and runs each as `vwh run` of that team
 * alone (team-night.ts). The job is leased: pg-boss expires an active job `leaseSeconds` after its start, and this
 * worker's heartbeat pushes that expiry forward every `heartbeatSeconds` while it runs, so a 3-hour backfill keeps its
 * job and a worker killed -9 loses it one lease after its last heartbeat, when the queue's maintenance retries it on
 * another worker (docs/cluster.md gives the bound). A heartbeat that finds the job no longer its own stops the
 * night at its next safe point and leaves the job alone. SIGTERM stops every night at its next safe point and hands
 * its job back (failed, so retried). Every attempt is a row of vwh.team_runs.
 */
import { hostname } from 'node:os';
import type { ClusterSettings } from '../../core/cluster-config.js';
import type { SyncConfig } from '../../core/config.js';
import { redact } from '../../core/errors.js';
import type { LogFormat, Logger } from '../../core/log.js';
import { repairFromCatalog } from '../../export/lake/catalog-publish.js';
import type { PipelineResult } from '../pipeline.js';
import { BOSS_SCHEMA, type Cluster, NIGHT_QUEUE, openCluster, retrying } from './connect.js';
import { postgresLakeCatalog } from './lake-catalog.js';
import { type NightJob, sharedLake, writeTeamConfig } from './team-night.js';

export interface WorkerOptions {
  config: SyncConfig;
  settings: ClusterSettings;
  concurrency: number;
  logger: Logger;
  logFormat?: LogFormat;
  /** Where each night prints what `vwh run` prints (its first line, its stages' logs). */
  out: NodeJS.WritableStream;
  /** SIGTERM/SIGINT: no new job, the nights in hand stop at a safe point and their jobs go back to the queue. */
  stop: AbortSignal;
  /** Called once the worker is registered and fetching (tests wait for it). */
  onReady?: (workerId: string) => void;
}

interface Held {
  job: { id: string; retryCount: number; data: NightJob };
  runId: string;
  stop: AbortController;
}

/** Days after which a stopped or silent worker's row is deleted. */
const FORGET_WORKERS_DAYS = 7;

/** Why a night was stopped: the worker's own stop, or its lease lost to another worker. */
const LEASE_LOST = 'lease lost';

export async function runWorker(o: WorkerOptions): Promise<void> {
  const { settings, logger } = o;
  const cluster = await openCluster(settings, { logger, supervise: true });
  const workerId = `${hostname()}:${process.pid}:${Date.now().toString(36)}`;
  const held = new Map<string, Held>();
  await cluster.pool.query('insert into vwh.workers (worker_id, host, pid, concurrency) values ($1, $2, $3, $4)', [
    workerId,
    hostname(),
    process.pid,
    o.concurrency,
  ]);
  // workers stopped, or silent, for a week are forgotten (vwh status lists those of the last day; their nights stay
  // in vwh.team_runs)
  await cluster.pool.query(
    `delete from vwh.workers where coalesce(stopped_at, heartbeat_at) < now() - make_interval(days => $1)`,
    [FORGET_WORKERS_DAYS],
  );
  logger.info('worker started', { worker: workerId, concurrency: o.concurrency, lease_s: settings.leaseSeconds });
  // an export that died after its commit, or before it, left the lake's folder unlike its catalog: made alike
  const lake = sharedLake(settings, o.config);
  if (lake) {
    await repairFromCatalog(lake.dir, postgresLakeCatalog(cluster.pool, lake.name), logger).catch((error: Error) =>
      logger.warn('worker: could not repair the lake from its catalog', { error: redact(error.message) }),
    );
  }
  const beat = setInterval(() => {
    heartbeat(cluster, workerId, held, logger).catch((error: Error) =>
      logger.warn('worker: heartbeat failed', { error: redact(error.message) }),
    );
  }, settings.heartbeatSeconds * 1000);
  try {
    o.onReady?.(workerId);
    const loops = Array.from({ length: o.concurrency }, () => fetchLoop(cluster, workerId, held, o));
    await Promise.all(loops);
  } finally {
    clearInterval(beat);
    await cluster.pool
      .query('update vwh.workers set stopped_at = now(), heartbeat_at = now() where worker_id = $1', [workerId])
      .catch(() => {});
    await cluster.close();
    logger.info('worker stopped', { worker: workerId });
  }
}

async function fetchLoop(cluster: Cluster, workerId: string, held: Map<string, Held>, o: WorkerOptions): Promise<void> {
  const pollMs = cluster.settings.pollSeconds * 1000;
  while (!o.stop.aborted) {
    let job: Held['job'] | undefined;
    try {
      const [fetched] = await cluster.boss.fetch<NightJob>(NIGHT_QUEUE, { batchSize: 1, includeMetadata: true });
      job = fetched;
    } catch (error) {
      o.logger.warn('worker: could not fetch a job', { error: redact((error as Error).message) });
    }
    if (!job) {
      await sleep(pollMs, o.stop);
      continue;
    }
    try {
      await runJob(cluster, workerId, held, job, o);
    } catch (error) {
      // PostgreSQL away for longer than a lease: the job's lease lapses and another worker (or this one) retries it
      o.logger.error('worker: a job could not be run or reported', {
        job: job.id,
        error: redact((error as Error).message),
      });
    }
  }
}

async function runJob(
  cluster: Cluster,
  workerId: string,
  held: Map<string, Held>,
  job: Held['job'],
  o: WorkerOptions,
): Promise<void> {
  const { logger, settings } = o;
  const { team, night_id: nightId, options } = job.data;
  const attempt = job.retryCount + 1;
  const runId = `${nightId}.${team}.${attempt}`;
  const stop = new AbortController();
  const onStop = () => stop.abort(new Error('stopped'));
  o.stop.addEventListener('abort', onStop, { once: true });
  held.set(job.id, { job, runId, stop });
  const within = settings.leaseSeconds * 1000;
  await retrying(
    async () => {
      // an earlier attempt's row whose worker died: its end is its last heartbeat
      await cluster.pool.query(
        `update vwh.team_runs set status = 'abandoned', ended_at = heartbeat_at,
            error = 'its worker stopped answering; the job was taken over' where job_id = $1 and ended_at is null`,
        [job.id],
      );
      await cluster.pool.query(
        `insert into vwh.team_runs (run_id, night_id, team, job_id, attempt, worker_id, host, pid, status)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 'running') on conflict (run_id) do nothing`,
        [runId, nightId, team, job.id, attempt, workerId, hostname(), process.pid],
      );
    },
    within,
    logger,
    'ledger',
  );
  logger.info('team night started', { team, night: nightId, attempt, job: job.id });
  let result: Pick<PipelineResult, 'status' | 'exitCode' | 'stages'> & { error?: string };
  try {
    if (o.stop.aborted) throw new Error('the worker is stopping');
    const places = writeTeamConfig(settings, o.config, team);
    const lake = sharedLake(settings, o.config);
    const { runNightly } = await import('../nightly.js');
    result = await runNightly(
      {
        config: places.config,
        db: places.db,
        today: options.today,
        rateWindowMs: options.rateWindowMs,
        fullRefresh: options.fullRefresh,
        modelsDir: options.modelsDir,
        logFormat: o.logFormat,
      },
      {
        trigger: job.data.trigger,
        stop: stop.signal,
        logger,
        out: o.out,
        summary: false,
        ...(lake ? { lakeCatalog: postgresLakeCatalog(cluster.pool, lake.name) } : {}),
      },
    );
  } catch (error) {
    const e = error as { message?: string; exitCode?: number };
    result = { status: 'failed', exitCode: e.exitCode ?? 1, stages: [], error: redact(e.message ?? String(error)) };
  } finally {
    o.stop.removeEventListener('abort', onStop);
    held.delete(job.id);
  }
  const lost = stop.signal.reason === LEASE_LOST;
  const failedStages = result.stages.filter((s) => s.outcome.status === 'failed');
  const error =
    result.error ??
    (lost
      ? 'its lease was lost to another worker; stopped at a safe point'
      : result.status === 'interrupted'
        ? 'the worker stopped (SIGTERM) at a safe point; the job was handed back'
        : failedStages.map((s) => `${s.name}: ${s.outcome.error ?? 'failed'}`).join('; ') || null);
  const stages = Object.fromEntries(result.stages.map((s) => [s.name, s.outcome.status]));
  await retrying(
    () =>
      cluster.pool.query(
        `update vwh.team_runs set ended_at = now(), heartbeat_at = now(), status = $2, exit_code = $3, error = $4,
            stages = $5 where run_id = $1`,
        [runId, result.status, result.exitCode, error, JSON.stringify(stages)],
      ),
    within,
    logger,
    'ledger',
  ).catch((e: Error) => logger.warn('worker: could not record the end of a night', { error: redact(e.message) }));
  const facts = { team, night: nightId, attempt, status: result.status, exit_code: result.exitCode };
  if (lost) {
    logger.warn('team night stopped: its lease was lost to another worker', facts);
    return;
  }
  const output = { run_id: runId, status: result.status, exit_code: result.exitCode, error };
  try {
    await retrying(
      async () => {
        if (!(await stillOurs(cluster, job))) throw Object.assign(new Error(LEASE_LOST), { lost: true });
        if (result.status === 'succeeded' || result.status === 'partial')
          await cluster.boss.complete(NIGHT_QUEUE, job.id, output);
        else await cluster.boss.fail(NIGHT_QUEUE, job.id, output);
      },
      within,
      logger,
      'job result',
    );
    const log = result.status === 'failed' ? logger.error : result.status === 'interrupted' ? logger.warn : logger.info;
    log('team night ended', facts);
  } catch (e) {
    logger.warn("team night ended, but its job is no longer this worker's: another worker took it over", {
      ...facts,
      error: redact((e as Error).message),
    });
  }
}

/** The job is still active under this attempt (an expired job is retried under the same id, one attempt later). */
async function stillOurs(cluster: Cluster, job: Held['job']): Promise<boolean> {
  const { rowCount } = await cluster.pool.query(
    `select 1 from ${BOSS_SCHEMA}.job where name = $1 and id = $2 and state = 'active' and retry_count = $3`,
    [NIGHT_QUEUE, job.id, job.retryCount],
  );
  return rowCount === 1;
}

/**
 * The worker is alive, and each job in hand is leased for another `leaseSeconds` from now (pg-boss expires an
 * active job at started_on + expire_in). A job no longer active under this attempt is someone else's now.
 */
async function heartbeat(cluster: Cluster, workerId: string, held: Map<string, Held>, logger: Logger): Promise<void> {
  await cluster.pool.query('update vwh.workers set heartbeat_at = now() where worker_id = $1', [workerId]);
  for (const { job, runId, stop } of held.values()) {
    const { rowCount } = await cluster.pool.query(
      `update ${BOSS_SCHEMA}.job set expire_in = (now() - started_on) + make_interval(secs => $3)
        where name = $1 and id = $2 and state = 'active' and retry_count = $4`,
      [NIGHT_QUEUE, job.id, cluster.settings.leaseSeconds, job.retryCount],
    );
    await cluster.pool.query('update vwh.team_runs set heartbeat_at = now() where run_id = $1 and ended_at is null', [
      runId,
    ]);
    if (rowCount === 0 && !stop.signal.aborted) {
      logger.warn('worker: a job is no longer leased to this worker; stopping its night', { job: job.id });
      stop.abort(LEASE_LOST);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
