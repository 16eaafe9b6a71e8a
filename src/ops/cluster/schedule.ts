/**
 * `vwh schedule` with a cluster: the same scheduler loop as one machine's (scheduler.ts: cron, catch-up, clock
 * jumps), but a firing queues a night for the workers rather than running it. Each firing is a row of vwh.nights
 * keyed by its instant (unique): however many schedulers run, on however many machines, the first to insert it
 * queues the night and the others find it taken, so the cron fires once across the fleet. Catch-up reads the last
 * firing queued from the same table.
 */

import type { Clock } from '../../core/clock.js';
import type { ClusterSettings } from '../../core/cluster-config.js';
import type { SyncConfig } from '../../core/config.js';
import { redact } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { CronTrigger } from '../cron.js';
import { newRunId } from '../pipeline.js';
import { runScheduler } from '../scheduler.js';
import { openCluster, retrying } from './connect.js';
import { queueNight } from './night.js';
import { clusterTeams } from './run-night.js';

export interface ClusterScheduleOptions {
  config: SyncConfig;
  settings: ClusterSettings;
  trigger: CronTrigger;
  catchUp: 'latest' | 'skip';
  clock: Clock;
  logger: Logger;
  stop: AbortSignal;
  once?: boolean;
}

export async function runClusterSchedule(o: ClusterScheduleOptions): Promise<void> {
  const teams = clusterTeams(o.config);
  const { logger } = o;
  const cluster = await openCluster(o.settings, { logger });
  const within = o.settings.leaseSeconds * 1000;
  try {
    await runScheduler({
      trigger: o.trigger,
      clock: o.clock,
      catchUp: o.catchUp,
      logger,
      stop: o.stop,
      ...(o.once ? { once: true } : {}),
      lastFinished: async () => {
        const { rows } = await retrying(
          () =>
            cluster.pool.query<{ at: Date | null }>(
              'select max(fire_at) as at from vwh.nights where fire_at is not null',
            ),
          within,
          logger,
          'last firing',
        );
        return rows[0]?.at ? rows[0].at.getTime() : undefined;
      },
      job: async (why, due) => {
        const firing = new Date(due).toISOString();
        try {
          const night = await retrying(
            () => queueNight(cluster, newRunId(o.clock.now()), teams, why, {}, due),
            within,
            logger,
            'queue a night',
          );
          if (night) {
            logger.info('night queued for the workers', {
              night: night.nightId,
              trigger: why,
              firing,
              teams: night.jobs.map((j) => j.team),
              already_queued: night.jobs.filter((j) => j.existing).map((j) => j.team),
            });
          } else logger.info('this firing was queued by another scheduler', { firing });
        } catch (error) {
          logger.error('could not queue the night; the next firing will', {
            firing,
            error: redact((error as Error).message),
          });
        }
      },
    });
  } finally {
    await cluster.close();
  }
}
