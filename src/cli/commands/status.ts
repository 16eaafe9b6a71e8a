/**
 * `vwh status`: the last runs and their stages, freshness per stream and project (warn_after / error_after of the
 * config), rows per table, rejected rows, the budget used and the models that failed. `--json` for monitoring.
 */
import type { Command } from 'commander';
import { DbFile, wholeNumber } from '../../core/inputs.js';
import { numberFlag, textFlag } from '../validate.js';

interface StatusFlags {
  config?: string;
  db?: string;
  json?: boolean;
  runs: number;
}

export function register(program: Command): void {
  program
    .command('status')
    .description('Show the last runs, freshness per stream and project, rows per table, rejected rows and budget used.')
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option(
      '--db <path>',
      'DuckDB file (default data/warehouse.duckdb, or "db" in the config)',
      textFlag('--db', DbFile),
    )
    .option('--json', 'print one JSON document (stable snake_case keys) for monitoring')
    .option('--runs <n>', 'how many runs to show', numberFlag('--runs', wholeNumber(1, 100)), 5)
    .addHelpText(
      'after',
      '\nExit codes: 0 fresh and the last run finished; 1 a stream is older than freshness.error_after, or the last run failed;\n' +
        '4 the warehouse is locked and there is no published copy; 64 bad arguments.',
    )
    .action(async (flags: StatusFlags) => {
      const { loadConfig } = await import('../../core/config.js');
      const { dbPathOf, publishPathOf } = await import('../../ops/paths.js');
      const { formatStatus, statusReport } = await import('../../ops/status.js');
      const config = loadConfig(flags.config);
      const db = dbPathOf(flags, config);
      const report = await statusReport({
        db,
        published: publishPathOf(db, config),
        now: Date.now(),
        runs: flags.runs,
        warn_after: config.freshness?.warn_after,
        error_after: config.freshness?.error_after,
      });
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
      process.exitCode = report.exit_code;
    });
}
