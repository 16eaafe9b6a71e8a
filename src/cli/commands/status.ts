/**
 * `vwh status`: the run in progress, the last runs and their stages, freshness per stream and project (warn_after /
 * error_after of the config), rows per table, rejected rows, the budget used and the models that failed. `--json`
 * for monitoring; `--check` one line and an exit code for a monitor (the work is in src/ops/status.ts).
 */
import type { Command } from 'commander';
import type { SyncConfig } from '../../core/config.js';
import { exitCodesHelp } from '../../core/errors.js';
import { DbFile, Duration, wholeNumber } from '../../core/inputs.js';
import { numberFlag, READER_HELP, textFlag } from '../validate.js';

interface StatusFlags {
  config?: string;
  db?: string;
  json?: boolean;
  runs: number;
  check?: boolean;
  maxAge?: number;
}

/** `vwh status --help` and docs/operations.md say the same; the codes' meanings are the one table's (core/errors). */
const STATUS_EXIT_HELP = `${exitCodesHelp([0, 1, 4, 5, 64], {
  0: 'fresh (or only warn) and the last run that ended succeeded (or was partial)',
  1: 'the last run that ended failed or was interrupted (killed); with --check also: no run yet',
  4: 'with no published copy to read instead',
})}

With --check (for a monitor: one line, or one JSON document with --json): OK exits 0; FAILED, INTERRUPTED or
NONE 1; STALE 5. A run in progress is named, and judged only once it ends.

With a "cluster" section: the workers (alive: a heartbeat within one lease), each team's job and last run, from
PostgreSQL; --check: FAILED (1) a team's job failed after its retries or never succeeded, STALE (5) a team's last
success is older than --max-age (default freshness.error_after).`;

/** `vwh status` of a cluster (docs/cluster.md): the fleet from PostgreSQL, not a warehouse. */
async function clusterStatusCommand(config: SyncConfig, flags: StatusFlags): Promise<number> {
  const { clusterSettings } = await import('../../core/cluster-config.js');
  const { ageMs, DEFAULT_FRESHNESS } = await import('../../core/config.js');
  const { createLogger } = await import('../../core/log.js');
  const { openCluster } = await import('../../ops/cluster/connect.js');
  const { clusterTeams } = await import('../../ops/cluster/run-night.js');
  const { clusterStatus, formatClusterCheck, formatClusterStatus } = await import('../../ops/cluster/status.js');
  const settings = clusterSettings(config.cluster);
  if (!settings) return 64;
  const cluster = await openCluster(settings, { logger: createLogger({ format: 'json', stream: process.stderr }) });
  try {
    const report = await clusterStatus(cluster, clusterTeams(config), {
      now: Date.now(),
      maxAgeMs: flags.maxAge ?? ageMs(config.freshness?.error_after ?? DEFAULT_FRESHNESS.error_after),
    });
    if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else process.stdout.write(flags.check ? formatClusterCheck(report) : formatClusterStatus(report));
    return flags.check ? report.check.exit_code : report.exit_code;
  } finally {
    await cluster.close();
  }
}

export function register(program: Command): void {
  program
    .command('status')
    .description(
      'Show the run in progress, the last runs, freshness per stream and project, rows per table, rejected rows and budget used.',
    )
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option(
      '--db <path>',
      'DuckDB file (default data/warehouse.duckdb, or "db" in the config)',
      textFlag('--db', DbFile),
    )
    .option('--json', 'print one JSON document (stable snake_case keys) for monitoring')
    .option('--runs <n>', 'how many runs to show', numberFlag('--runs', wholeNumber(1, 100)), 5)
    .option(
      '--check',
      'one line and an exit code for a monitor: 0 ok, 1 the last run failed or was interrupted, 5 stale',
    )
    .option(
      '--max-age <duration>',
      'with --check: the last successful run must have ended within this (90m, 26h, 2d)',
      textFlag('--max-age', Duration),
    )
    .addHelpText('after', `${READER_HELP}${STATUS_EXIT_HELP}`)
    .action(async (flags: StatusFlags) => {
      const { loadConfig } = await import('../../core/config.js');
      const { dbPathOf, publishPathOf } = await import('../../ops/paths.js');
      const { staleLockMs } = await import('../../ops/lock.js');
      const { formatCheck, formatStatus, statusReport } = await import('../../ops/status.js');
      const { jsonDocument, logFormat, noteLine } = await import('../../core/log.js');
      const config = loadConfig(flags.config);
      if (config.cluster) {
        process.exitCode = await clusterStatusCommand(config, flags);
        return;
      }
      const db = dbPathOf(flags, config);
      const report = await statusReport(
        {
          db,
          published: publishPathOf(db, config),
          now: Date.now(),
          runs: flags.runs,
          warn_after: config.freshness?.warn_after,
          error_after: config.freshness?.error_after,
          max_age_ms: flags.maxAge,
          stale_lock_ms: staleLockMs(config),
        },
        noteLine,
      );
      // JSON mode: the document, on one line, whatever --json says
      if (flags.json || logFormat() === 'json') process.stdout.write(jsonDocument(report));
      else process.stdout.write(flags.check ? formatCheck(report) : formatStatus(report));
      process.exitCode = flags.check ? report.check.exit_code : report.exit_code;
    });
}
