/**
 * `vwh export parquet|arrow`: the warehouse's marts (and on request raw tables and staging views) for tools that do
 * not speak DuckDB. The work is in src/export/; this file parses flags and prints the summary.
 */
import type { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../../core/defaults.js';
import { exitCodesHelp } from '../../core/errors.js';
import type { GuardedInput } from '../../core/folders.js';
import type { LogFormat, Logger } from '../../core/log.js';
import { DbFileRule } from '../../core/rules.js';
import { READER_HELP, textFlag } from '../validate.js';

type ExportModule = typeof import('../../export/index.js');

interface ParquetFlags {
  db: string;
  out: string;
  raw?: boolean;
  staging?: boolean;
  tables?: string[];
  logFormat?: LogFormat;
}

/** The export code and a logger, loaded when a subcommand runs (not for its --help). */
async function load(logFormat: LogFormat | undefined): Promise<{ exporter: ExportModule; log: Logger }> {
  const { createLogger } = await import('../../core/log.js');
  return { exporter: await import('../../export/index.js'), log: createLogger(logFormat ? { format: logFormat } : {}) };
}

/** The summary line of an export: as it reads, or one JSON event with the summary's fields. */
async function printSummary(exporter: ExportModule, summary: Parameters<ExportModule['describeSummary']>[0]) {
  const { outputLine } = await import('../../core/log.js');
  process.stdout.write(outputLine(exporter.describeSummary(summary), { ...summary }));
}

/** The file an export reads: the warehouse, or its published copy while a run holds it (named on stderr). */
async function source(db: string): Promise<string> {
  const { readerFile } = await import('../../ops/read-source.js');
  const { noteLine } = await import('../../core/log.js');
  return readerFile({ db }, noteLine);
}

/** What --out may not land on (see ops/paths.ts), loaded when a subcommand runs. */
async function guardedInputsOf(db: string): Promise<GuardedInput[]> {
  return (await import('../../ops/paths.js')).guardedInputsOf(db);
}

/** The exit codes of every export and report (README and docs/exports.md say the same). */
export const EXPORT_EXIT_CODES = `
${READER_HELP}${exitCodesHelp([0, 1, 4, 64], {
  0: 'written (or nothing changed)',
  1: 'the previous files are intact',
  4: 'or another export held the lake for more than a minute',
  64: 'an unknown table, report, day or project, or an --out that cannot be written',
})}`;

export function register(program: Command): void {
  const exp = program
    .command('export')
    .description('Export the warehouse for other tools: a Parquet lake, Arrow IPC files (docs/exports.md).');

  exp
    .command('parquet')
    .description(
      'Write the marts as a zstd Parquet lake, Hive-partitioned (team_id/month), with _manifest.json; ' +
        'only changed partitions are rewritten.',
    )
    .requiredOption('--out <dir>', 'the lake folder (created when missing; several writers may share it)')
    .option('--db <file>', 'the warehouse file (opened read-only)', textFlag('--db', DbFileRule), DEFAULT_DB_PATH)
    .option('--raw', 'also the raw.* tables')
    .option('--staging', 'also the staging.* views')
    .option('--tables <name...>', 'only these tables (name or schema.name)')
    .addHelpText(
      'after',
      '\nExamples:\n  vwh export parquet --out lake/\n  vwh export parquet --out lake/ --raw --tables brand_visibility_daily raw.chats\n' +
        '  duckdb -c "select * from read_parquet(\'lake/marts/brand_visibility_daily/**/*.parquet\', hive_partitioning = true)"' +
        EXPORT_EXIT_CODES,
    )
    .action(async (flags: ParquetFlags) => {
      const { exporter, log } = await load(flags.logFormat);
      const summary = await exporter.exportParquetLake({
        db: await source(flags.db),
        outDir: flags.out,
        raw: flags.raw,
        staging: flags.staging,
        tables: flags.tables,
        inputs: await guardedInputsOf(flags.db),
        log,
      });
      await printSummary(exporter, summary);
    });

  exp
    .command('arrow')
    .description('Write each mart as an Arrow IPC file (Feather v2), DIR/<schema>.<table>.arrow, streamed in batches.')
    .requiredOption('--out <dir>', 'the output folder (created when missing)')
    .option('--db <file>', 'the warehouse file (opened read-only)', textFlag('--db', DbFileRule), DEFAULT_DB_PATH)
    .option('--tables <name...>', 'only these marts')
    .addHelpText(
      'after',
      '\nExamples:\n  vwh export arrow --out arrow/\n' +
        '  python -c "import pyarrow.feather as f; print(f.read_table(\'arrow/marts.brand_visibility_daily.arrow\'))"' +
        EXPORT_EXIT_CODES,
    )
    .action(async (flags: Omit<ParquetFlags, 'raw' | 'staging'>) => {
      const { exporter, log } = await load(flags.logFormat);
      const summary = await exporter.exportArrow({
        db: await source(flags.db),
        outDir: flags.out,
        tables: flags.tables,
        inputs: await guardedInputsOf(flags.db),
        log,
      });
      await printSummary(exporter, summary);
    });

  exp
    .command('recover')
    .description(
      'Undo (or complete, past its commit point) the publish of a lake export that was killed, so the lake is again ' +
        'exactly one export; a no-op on a clean lake. Every export does this first; readers run it after a crash.',
    )
    .requiredOption('--out <dir>', 'the lake folder')
    .addHelpText('after', exitCodesHelp([0, 1, 4, 64], { 4: 'another export holds the lake' }))
    .action(async (flags: { out: string; logFormat?: LogFormat }) => {
      const { exporter, log } = await load(flags.logFormat);
      const done = await exporter.recoverLake(flags.out, log);
      const { outputLine } = await import('../../core/log.js');
      process.stdout.write(
        outputLine(
          `recover: ${done.rolledBack.length} publish undone, ${done.completed.length} completed, ` +
            `${done.removed.length} staging folder${done.removed.length === 1 ? '' : 's'} removed`,
          { ...done },
        ),
      );
    });
}
