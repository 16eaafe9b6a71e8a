/**
 * `vwh worker`: a long-lived process of a cluster (docs/cluster.md) that takes teams' nights from the queue in
 * PostgreSQL and runs each as `vwh run` of that team (the work is in src/ops/cluster/worker.ts).
 */
import type { Command } from 'commander';
import { wholeNumber } from '../../core/inputs.js';
import { numberFlag } from '../validate.js';

interface WorkerFlags {
  config?: string;
  concurrency: number;
  stopTimeout: number;
}

const WORKER_HELP = `
Needs a "cluster" section in the config (url or VWH_CLUSTER_URL, dataDir). Each team's night runs in
<dataDir>/teams/<team>/ (warehouse.duckdb, published/), its exports go into the shared lake. A worker killed
(-9, power loss) loses its jobs one lease (cluster.leaseSeconds) after its last heartbeat; another worker
retries them. SIGINT/SIGTERM: no new job; the nights in hand stop at a safe point and go back to the queue.

Exit codes: 0 stopped (SIGINT/SIGTERM), 1 the cluster's PostgreSQL is unreachable or the stop timeout passed,
64 bad configuration (no cluster section).`;

export function register(program: Command): void {
  program
    .command('worker')
    .description("Take teams' nights from the cluster's queue in PostgreSQL and run them (docs/cluster.md).")
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option('--concurrency <n>', 'teams run at once by this worker', numberFlag('--concurrency', wholeNumber(1, 64)), 1)
    .option(
      '--stop-timeout <s>',
      'after SIGINT/SIGTERM, exit 1 if the nights in hand have not reached a safe point within this many seconds',
      numberFlag('--stop-timeout', wholeNumber(1)),
      120,
    )
    .addHelpText('after', WORKER_HELP)
    .action(async (flags: WorkerFlags) => {
      const { loadConfig } = await import('../../core/config.js');
      const { clusterSettings } = await import('../../core/cluster-config.js');
      const { VwhError } = await import('../../core/errors.js');
      const { createLogger } = await import('../../core/log.js');
      const { runWorker } = await import('../../ops/cluster/worker.js');
      const config = loadConfig(flags.config);
      const settings = clusterSettings(config.cluster);
      if (!settings) {
        throw new VwhError(
          'CONFIG_INVALID',
          `vwh worker needs a "cluster" section in ${flags.config ?? 'vwh.config.json'} (url, dataDir): see docs/cluster.md.`,
        );
      }
      const logger = createLogger();
      const stop = new AbortController();
      const onSignal = (signal: string) => {
        if (stop.signal.aborted) {
          logger.warn(`second ${signal}: exiting now`);
          process.exit(1);
        }
        logger.info(`${signal}: stopping at the next safe point; the jobs in hand go back to the queue`);
        stop.abort(new Error(signal));
        setTimeout(() => {
          logger.error('the nights in hand did not reach a safe point in time; exiting', {
            timeout_s: flags.stopTimeout,
          });
          process.exit(1);
        }, flags.stopTimeout * 1000).unref();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        await runWorker({
          config,
          settings,
          concurrency: flags.concurrency,
          logger,
          logFormat: logger.format,
          out: process.stdout,
          stop: stop.signal,
        });
        process.exitCode = 0;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
