/** `vwh query`: one SQL statement on the warehouse, read-only, printed as a table, CSV or JSON lines (src/ops/query.ts). */
import type { Command } from 'commander';
import { DEFAULT_QUERY_TIMEOUT_S } from '../../core/defaults.js';
import { exitCodesHelp } from '../../core/errors.js';
import { DbFileRule, timerSecondsRule, wholeNumberRule } from '../../core/rules.js';
import { numberFlag, READER_HELP, textFlag } from '../validate.js';

const FORMATS = ['table', 'csv', 'json'] as const;

interface QueryFlags {
  db?: string;
  config?: string;
  format?: (typeof FORMATS)[number];
  maxRows: number;
  timeout: number;
}

export function register(program: Command): void {
  program
    .command('query')
    .description('Run one SQL query on the warehouse (read-only) and print the rows: a table, CSV or JSON lines.')
    .argument('<sql>', 'the query, e.g. "select * from marts.brand_visibility_daily limit 5"')
    .option(
      '--db <file>',
      'the warehouse (default data/warehouse.duckdb, or "db" in the config)',
      textFlag('--db', DbFileRule),
    )
    .option('--config <path>', 'config file (default ./vwh.config.json when present): db and publish.path')
    .option('--format <format>', `output: ${FORMATS.join(', ')} (default: table; json with --log-format json)`)
    .option(
      '--max-rows <n>',
      'rows shown in table format (CSV and JSON print every row)',
      numberFlag('--max-rows', wholeNumberRule(1)),
      50,
    )
    .option(
      '--timeout <s>',
      'stop the query after this many seconds, exit 1 (0: no limit)',
      numberFlag('--timeout', timerSecondsRule(0)),
      DEFAULT_QUERY_TIMEOUT_S,
    )
    .addHelpText(
      'after',
      '\nValues print as DuckDB prints them: dates as 2026-11-24, NULL as NULL in the table (empty in CSV, null in\n' +
        'JSON), doubles rounded to 6 decimals in the table only (exact in CSV and JSON).\n' +
        READER_HELP +
        '\nExamples:\n' +
        '  vwh query "select * from ops.sync_runs order by started_at desc limit 1"\n' +
        '  vwh query --format csv "select * from marts.share_of_voice_daily" > sov.csv\n' +
        exitCodesHelp([0, 1, 4, 64], {
          1: 'the query ran past --timeout, or DuckDB failed on the file',
          64: 'also: the SQL failed (DuckDB says why), or it is more than one statement',
        }),
    )
    .action(async (sql: string, flags: QueryFlags) => {
      const { runQuery } = await import('../../ops/query.js');
      const { readerPaths } = await import('../../ops/read-source.js');
      const { logFormat, noteLine } = await import('../../core/log.js');
      const paths = await readerPaths(flags);
      // JSON mode: the rows as JSON lines too, unless another --format was asked for
      const format = flags.format ?? (logFormat() === 'json' ? 'json' : 'table');
      await runQuery(sql, { ...flags, format, ...paths }, process.stdout, noteLine);
    });
}
