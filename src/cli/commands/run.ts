/**
 * `vwh run`: the nightly job, once: sync → models build (with audits) → exports → publish → alerts, each stage in
 * the run ledger (ops.pipeline_runs). With no API key configured it runs on the embedded reference services.
 */
import type { Command } from 'commander';
import { exitCodesHelp } from '../../core/errors.js';
import { ApiDay, BaseUrl, DbFile, ExistingDir, TeamName, timerMs, wholeNumber } from '../../core/inputs.js';
import { userLine } from '../../core/log.js';
import type { NightlyFlags } from '../../ops/nightly.js';
import { numberFlag, textFlag } from '../validate.js';

interface RunCliFlags extends Omit<NightlyFlags, 'world'> {
  seed: number;
  projects: number;
  prompts: number;
  historyDays: number;
  /** `--no-wait` (cluster): queue the night and exit. */
  wait: boolean;
}

export const RUN_EXIT_HELP = exitCodesHelp([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 64, 130], {
  0: 'every stage succeeded',
  2: 'see vwh status',
  4: 'a run holds the warehouse or the run lock',
  11: 'a model errored or an audit at error failed; exports and publish skipped',
  13: 'the previous published copy is untouched',
  14: 'an alert could not be delivered',
  15: 'the webhook journal could not be ingested',
  130: 'recorded as interrupted',
});

/** The config's cluster, when it has one (pg and pg-boss are loaded only then). */
async function clusterOf(configPath: string | undefined) {
  const { loadConfig } = await import('../../core/config.js');
  const config = loadConfig(configPath);
  if (!config.cluster) return undefined;
  const { clusterSettings } = await import('../../core/cluster-config.js');
  const settings = clusterSettings(config.cluster);
  return settings ? { config, settings } : undefined;
}

export function register(program: Command): void {
  program
    .command('run')
    .description(
      'Run the nightly job once: sync, models build, exports, publish, alerts (on the embedded demo services when no API key is configured).',
    )
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option(
      '--db <path>',
      'DuckDB file (default data/warehouse.duckdb, or "db" in the config)',
      textFlag('--db', DbFile),
    )
    .option('--key-file <path>', 'read the API key from this file instead of VWH_API_KEY')
    .option(
      '--base-url <url>',
      'API base URL (default VWH_BASE_URL, or "baseUrl" in the config)',
      textFlag('--base-url', BaseUrl),
    )
    .option('--team <name>', 'team name stored in every row (single-key runs)', textFlag('--team', TeamName))
    .option('--today <day>', "the API's current UTC day (default: today)", textFlag('--today', ApiDay))
    .option(
      '--models-dir <dir>',
      'your own models folder (default: models.dir in the config, else the shipped models)',
      textFlag('--models-dir', ExistingDir),
    )
    .option('--embedded', 'run on the embedded reference services even when a key is configured')
    .option('--seed <n>', 'embedded: seed of the demo world', numberFlag('--seed', wholeNumber(0)), 42)
    .option('--projects <n>', 'embedded: demo projects', numberFlag('--projects', wholeNumber(1)), 3)
    .option('--prompts <n>', 'embedded: prompts per demo project', numberFlag('--prompts', wholeNumber(1)), 12)
    .option('--history-days <n>', 'embedded: days of history', numberFlag('--history-days', wholeNumber(1)), 90)
    .option(
      '--rate-window-ms <ms>',
      'rate window (60000 in production; the embedded default uses 1000)',
      numberFlag('--rate-window-ms', timerMs(1)),
    )
    .option('--full-refresh', 'the sync re-fetches every stream from its start rather than from its state')
    .option('--no-wait', 'with a cluster (docs/cluster.md): queue the night for the workers and exit at once')
    .addHelpText(
      'after',
      `${RUN_EXIT_HELP}\n\nWith a "cluster" section the teams' nights are queued for \`vwh worker\`s; the run waits for them and exits\nwith the first failed team's code (0 with --no-wait once queued).`,
    )
    .action(async (flags: RunCliFlags) => {
      const stop = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => {
        // at once: the stage in hand may take a while to reach its safe point
        process.stderr.write(
          userLine(
            `${signal} received: stopping at a safe point (the sync commits the unit in hand; nothing landed is lost); the summary follows`,
          ),
        );
        stop.abort(new Error('interrupted'));
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const { seed, projects, prompts, historyDays, wait, ...rest } = flags;
        const cluster = await clusterOf(flags.config);
        if (cluster) {
          const { runClusterNight } = await import('../../ops/cluster/run-night.js');
          const { createLogger } = await import('../../core/log.js');
          const logger = createLogger(flags.logFormat ? { format: flags.logFormat } : {});
          process.exitCode = await runClusterNight({
            ...cluster,
            options: {
              ...(flags.today ? { today: flags.today } : {}),
              ...(flags.rateWindowMs ? { rateWindowMs: flags.rateWindowMs } : {}),
              ...(flags.fullRefresh ? { fullRefresh: true } : {}),
              ...(flags.modelsDir ? { modelsDir: flags.modelsDir } : {}),
            },
            noWait: !wait,
            json: (flags.logFormat ?? logger.format) === 'json',
            out: process.stdout,
            logger,
            stop: stop.signal,
          });
          return;
        }
        const { runNightly } = await import('../../ops/nightly.js');
        const result = await runNightly(
          { ...rest, world: { seed, projects, prompts, historyDays } },
          { stop: stop.signal },
        );
        process.exitCode = result.exitCode;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
