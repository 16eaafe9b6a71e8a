/**
 * `vwh schedule`: the long-lived service. Runs `vwh run` on a cron expression in an IANA time zone, catches up
 * from the run ledger at start and after a sleep, never overlaps (the run lock works across processes and hosts),
 * and stops gracefully on SIGINT/SIGTERM: the unit in hand commits, the run is recorded as interrupted, exit 0.
 */
import { type Command, Option } from 'commander';
import { DEFAULT_CRON } from '../../core/config.js';
import { exitCodesHelp, isVwhError } from '../../core/errors.js';
import { DbFile, Port, timerSeconds } from '../../core/inputs.js';
import type { LogFormat } from '../../core/log.js';
import type { Receiver } from '../../ops/events/receiver.js';
import { numberFlag, textFlag } from '../validate.js';
import { listenForEvents } from './events.js';

interface ScheduleFlags {
  config?: string;
  db?: string;
  cron?: string;
  timezone?: string;
  catchUp?: 'latest' | 'skip';
  once?: boolean;
  embedded?: boolean;
  logFormat?: LogFormat;
  stopTimeout: number;
  eventsPort?: number;
  secret: string[];
}

export function register(program: Command): void {
  program
    .command('schedule')
    .description(
      'Run the nightly job on a schedule (node-cron expression, IANA time zone), with catch-up and no overlap.',
    )
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option(
      '--db <path>',
      'DuckDB file (default data/warehouse.duckdb, or "db" in the config)',
      textFlag('--db', DbFile),
    )
    .option('--cron <expression>', `cron expression (default schedule.cron, else "${DEFAULT_CRON}")`)
    .option('--timezone <zone>', 'IANA time zone of the expression (default schedule.timezone, else UTC)')
    .addOption(
      new Option('--catch-up <policy>', 'a missed run: latest (run once now) or skip').choices(['latest', 'skip']),
    )
    .option('--once', 'do the catch-up check (run if a firing was missed), then exit: for cron-driven setups')
    .option('--embedded', 'run on the embedded reference services even when a key is configured')
    .option(
      '--events-port <n>',
      'also receive the webhook deliveries in this process (what vwh events listen does), on this port (0: any)',
      numberFlag('--events-port', Port),
    )
    .option(
      '--secret <secret>',
      'with --events-port: a webhook secret accepted (repeatable; also events.secrets and VWH_WEBHOOK_SECRETS)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option(
      '--stop-timeout <s>',
      'after SIGINT/SIGTERM, exit 1 if the run has not reached a safe point within this many seconds',
      numberFlag('--stop-timeout', timerSeconds(1)),
      120,
    )
    .addHelpText(
      'after',
      `${exitCodesHelp([0, 1, 64], { 0: 'stopped (SIGINT/SIGTERM), or --once done', 1: 'also: the stop timeout passed' })}\n` +
        'Each run is recorded in ops.pipeline_runs; `vwh status` shows them.\n' +
        'With a "cluster" section a firing queues a night for the workers (vwh worker) and the cron fires once across\n' +
        'every scheduler of the fleet (each firing is one row in PostgreSQL); catch-up reads the last firing queued.',
    )
    .action(async (flags: ScheduleFlags) => {
      process.exitCode = await runSchedule(flags);
    });
}

export async function runSchedule(flags: ScheduleFlags): Promise<number> {
  const { loadConfig } = await import('../../core/config.js');
  const { createLogger } = await import('../../core/log.js');
  const { CronTrigger } = await import('../../ops/cron.js');
  const { lastFinishedRunStart } = await import('../../ops/ledger.js');
  const { runNightly } = await import('../../ops/nightly.js');
  const { dbPathOf } = await import('../../ops/paths.js');
  const { missed, runScheduler } = await import('../../ops/scheduler.js');
  const { systemClock } = await import('../../core/clock.js');
  const config = loadConfig(flags.config);
  const logger = createLogger(flags.logFormat ? { format: flags.logFormat } : {});
  const inConfig = (field: string) => `${field} in ${flags.config ?? 'vwh.config.json'}`;
  const trigger = new CronTrigger(
    flags.cron ?? config.schedule?.cron ?? DEFAULT_CRON,
    flags.timezone ?? config.schedule?.timezone ?? 'UTC',
    {
      cron: flags.cron !== undefined ? '--cron' : inConfig('schedule.cron'),
      timezone: flags.timezone !== undefined ? '--timezone' : inConfig('schedule.timezone'),
    },
  );
  const stop = new AbortController();
  let stopTimer: NodeJS.Timeout | undefined;
  const onSignal = (signal: string) => {
    if (stop.signal.aborted) {
      logger.warn(`second ${signal}: exiting now`);
      process.exit(1);
    }
    logger.info(`${signal}: stopping at the next safe point`, { timeout_s: flags.stopTimeout });
    stop.abort(new Error(signal));
    stopTimer = setTimeout(() => {
      logger.error('the run did not reach a safe point in time; exiting', { timeout_s: flags.stopTimeout });
      process.exit(1);
    }, flags.stopTimeout * 1000);
    stopTimer.unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (config.cluster) {
    try {
      const { clusterSettings } = await import('../../core/cluster-config.js');
      const { runClusterSchedule } = await import('../../ops/cluster/schedule.js');
      const settings = clusterSettings(config.cluster);
      if (!settings) return 64;
      await runClusterSchedule({
        config,
        settings,
        trigger,
        catchUp: flags.catchUp ?? config.schedule?.catchUp ?? 'latest',
        clock: systemClock,
        logger,
        stop: stop.signal,
        ...(flags.once ? { once: true } : {}),
      });
      return 0;
    } finally {
      if (stopTimer) clearTimeout(stopTimer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
  const dbPath = dbPathOf(flags, config);
  const lastFinished = () => lastFinishedRunStart(dbPath);
  let receiver: Receiver | undefined;
  try {
    // The receiver only appends to the journal, never opens the warehouse: the runs of this process ingest it.
    if (flags.eventsPort !== undefined) {
      receiver = await listenForEvents(config, dbPath, { port: flags.eventsPort, secret: flags.secret }, logger);
    }
    await runScheduler({
      trigger,
      clock: systemClock,
      catchUp: flags.catchUp ?? config.schedule?.catchUp ?? 'latest',
      logger,
      stop: stop.signal,
      lastFinished,
      once: flags.once,
      job: async (why, due) => {
        try {
          const result = await runNightly(
            {
              config: flags.config,
              db: dbPath,
              embedded: flags.embedded,
              logFormat: flags.logFormat,
            },
            {
              trigger: why,
              stop: stop.signal,
              logger,
              summary: false,
              // Once the lock is ours: another process may have served this firing meanwhile.
              onlyIf: async () => ((await missed(lastFinished, due)) ? undefined : 'another process already ran it'),
            },
          );
          if (!result.skipped)
            logger.info('scheduled run ended', {
              run_id: result.runId,
              status: result.status,
              exit_code: result.exitCode,
            });
        } catch (error) {
          // A run that cannot start (the lock held by another process, a locked warehouse) waits for the next firing.
          if (!isVwhError(error)) throw error;
          logger.warn('scheduled run did not start', { error: error.message, code: error.code });
        }
      },
    });
    return 0;
  } finally {
    await receiver?.close();
    if (stopTimer) clearTimeout(stopTimer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
