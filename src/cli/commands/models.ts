import type { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../../core/defaults.js';
import { exitCodesHelp } from '../../core/errors.js';
import { Day, DbFile, ExistingDir, MemorySize, wholeNumber } from '../../core/inputs.js';
import { DEFAULT_TARGET_DIR } from '../../models/artifacts/write.js';
import { DEFAULT_MEMORY_LIMIT, defaultThreads } from '../../warehouse/resources.js';
import { numberFlag, textFlag } from '../validate.js';
import type { CommonOptions, RunCliOptions } from './models-actions.js';

const SELECT_HELP = `
Selection (--select/--exclude, space-separated or repeated; a union):
  name, schema.name   one model                 +name   it and its ancestors
  name+               it and its descendants    tag:daily  path:marts/  kind:scd2
  state:modified      SQL or config changed since the last build (state:new: never built)`;

const EXIT_HELP = exitCodesHelp([0, 1, 2, 64], {
  0: 'every model built and no audit of severity error failed (warn audits allowed)',
  1: 'also a broken model graph (a cycle, an unknown table)',
  2: 'a model failed or an audit of severity error failed; its downstream models were skipped (run_results.json)',
});

const HELP = SELECT_HELP + EXIT_HELP;
/** plan, ls and docs: they only read. */
const READ_EXIT_HELP = exitCodesHelp([0, 1, 64]);

/** The subcommands' bodies and the runner they use: loaded when one runs, not for --help. */
const actions = () => import('./models-actions.js');

/** `vwh models build|run|test|plan|ls (list)|docs`: the dbt-like runner over dbt-like-models/. */
export function register(program: Command): void {
  const models = program
    .command('models')
    .description('Build, test and document the SQL models in dbt-like-models/ (DAG read from the SQL itself).')
    .addHelpText('after', HELP);

  const common = (cmd: Command, select = true) => {
    cmd
      .option('--db <file>', 'the warehouse file', textFlag('--db', DbFile), DEFAULT_DB_PATH)
      .option(
        '--models-dir <dir>',
        'the models folder (default: the models shipped with vwh)',
        textFlag('--models-dir', ExistingDir),
      )
      .option(
        '--target-dir <dir>',
        `where manifest.json, run_results.json and docs go (default: target/ beside the warehouse file, ${DEFAULT_TARGET_DIR} for the default --db)`,
      );
    if (select) {
      cmd
        .option('-s, --select <selector...>', 'models to include (see vwh models --help)')
        .option('--exclude <selector...>', 'models to leave out');
    }
    return cmd;
  };
  const runOptions = (cmd: Command) =>
    cmd
      .option(
        '--start <day>',
        'time-range models: reprocess from this day (YYYY-MM-DD), even if done',
        textFlag('--start', Day),
      )
      .option(
        '--end <day>',
        'time-range models: last day to process (default and latest: the last complete API day the sync recorded)',
        textFlag('--end', Day),
      )
      .option('--full-refresh', 'rebuild incremental models from scratch (scd2 history is never dropped)')
      .option(
        '--threads <n>',
        `DuckDB worker threads, also the models built at the same time (default: the cores, at most 4; here ${defaultThreads()})`,
        numberFlag('--threads', wholeNumber(1, 64)),
      )
      .option(
        '--memory-limit <size>',
        `DuckDB memory_limit (e.g. 512MB, 4GB); beyond it DuckDB spills to <db>.tmp/ (default ${DEFAULT_MEMORY_LIMIT})`,
        textFlag('--memory-limit', MemorySize),
      )
      .option('--store-failures', 'keep every failing audit row in audit_failures.*');

  runOptions(common(models.command('build').description('Build models in DAG order, then audit each one.')))
    .addHelpText('after', HELP)
    .action(async (o: RunCliOptions) => (await actions()).execute('build', o));
  runOptions(common(models.command('run').description('Build models in DAG order without audits.')))
    .addHelpText('after', HELP)
    .action(async (o: RunCliOptions) => (await actions()).execute('run', o));
  common(models.command('test').description('Run audits and singular tests on the tables as they are.'))
    .option('--unit', 'run the unit tests in tests/unit/ instead (in-memory DuckDB, no warehouse needed)')
    .addHelpText('after', HELP)
    .option('--store-failures', 'keep every failing audit row in audit_failures.*')
    .action(async (o: RunCliOptions) => {
      const a = await actions();
      await (o.unit ? a.unit(o) : a.execute('test', o));
    });
  common(models.command('plan').description('Show what changed since the last build and which days are missing.'))
    .option(
      '--start <day>',
      'show what a backfill from this day (YYYY-MM-DD) would reprocess',
      textFlag('--start', Day),
    )
    .option(
      '--end <day>',
      'last day to consider (default and latest: the last complete API day the sync recorded)',
      textFlag('--end', Day),
    )
    .option('--json', 'print JSON')
    .addHelpText('after', READ_EXIT_HELP)
    .action(async (o: RunCliOptions) => (await actions()).plan(o));
  common(models.command('ls').alias('list').description('List models with kind, inputs and tags.'))
    .option('--json', 'print JSON')
    .addHelpText('after', READ_EXIT_HELP)
    .action(async (o: RunCliOptions) => (await actions()).ls(o));
  common(
    models.command('docs').description('Write manifest.json, catalog.json, data_dictionary.md and index.html.'),
    false,
  )
    .addHelpText('after', READ_EXIT_HELP)
    .action(async (o: CommonOptions) => (await actions()).docs(o));
}
