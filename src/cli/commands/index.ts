/**
 * Every `vwh` subcommand, each owned by one file of this folder (its flags, its --help, its action). A call imports
 * only the file of the command it runs: `vwh --help` lists the commands from the table below and loads none of them
 * (no zod, no validators), and a command file loads DuckDB, HTTP, the pipeline and the rest with `await import()` when
 * its action runs. startup.test.ts checks both, and that the table says what each file declares.
 */
import { type Command, Help } from 'commander';
import { VwhError } from '../../core/errors.js';

interface CommandEntry {
  /** What `vwh --help` lists: the command's term (with `[options]` and its arguments) and its description. */
  term: string;
  description: string;
  load: () => Promise<{ register(program: Command): void }>;
}

/** In the order `vwh --help` lists them. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  run: {
    term: 'run [options]',
    description:
      'Run the nightly job once: sync, models build, exports, publish, alerts (on the embedded demo services when no API key is configured).',
    load: () => import('./run.js'),
  },
  schedule: {
    term: 'schedule [options]',
    description:
      'Run the nightly job on a schedule (node-cron expression, IANA time zone), with catch-up and no overlap.',
    load: () => import('./schedule.js'),
  },
  worker: {
    term: 'worker [options]',
    description: "Take teams' nights from the cluster's queue in PostgreSQL and run them (docs/cluster.md).",
    load: () => import('./worker.js'),
  },
  status: {
    term: 'status [options]',
    description:
      'Show the run in progress, the last runs, freshness per stream and project, rows per table, rejected rows and budget used.',
    load: () => import('./status.js'),
  },
  serve: {
    term: 'serve [options]',
    description: 'Run the reference server of the public data API (seeded, clock-controlled, with fault injection).',
    load: () => import('./serve.js'),
  },
  openapi: {
    term: 'openapi [options]',
    description: 'Print the OpenAPI 3.1 document of the services, generated from the contract in src/api/.',
    load: () => import('./openapi.js'),
  },
  sync: {
    term: 'sync [options]',
    description: 'Copy the API into the warehouse (raw.*), resumably and within the key rate budget.',
    load: () => import('./sync.js'),
  },
  models: {
    term: 'models',
    description: 'Build, test and document the SQL models in dbt-like-models/ (DAG read from the SQL itself).',
    load: () => import('./models.js'),
  },
  query: {
    term: 'query [options] <sql>',
    description: 'Run one SQL query on the warehouse (read-only) and print the rows: a table, CSV or JSON lines.',
    load: () => import('./query.js'),
  },
  export: {
    term: 'export',
    description: 'Export the warehouse for other tools: a Parquet lake, Arrow IPC files (docs/exports.md).',
    load: () => import('./export.js'),
  },
  events: {
    term: 'events',
    description: "Receive the service's webhook deliveries.",
    load: () => import('./events.js'),
  },
  doctor: {
    term: 'doctor [options]',
    description:
      'Check the config, the key (validity, tier, the API day), the warehouse and its lock, disk space and the published copy.',
    load: () => import('./doctor.js'),
  },
  config: {
    term: 'config',
    description: 'Print the JSON Schema of vwh.config.json, or its reference page (docs/config.md).',
    load: () => import('./config.js'),
  },
  report: {
    term: 'report [options] [name]',
    description: 'Write a named report (sql/reports/*.sql) as CSV, JSON or Markdown; `vwh report --list` names them.',
    load: () => import('./report.js'),
  },
};

/**
 * Registers the command `argv` runs (`vwh help <command>` included) from its file, and every other one as its name
 * and description only, which is all `vwh --help` and commander's "unknown command" suggestions need.
 */
export async function registerCommands(program: Command, argv: readonly string[]): Promise<void> {
  const wanted = commandOf(argv);
  const listed = new Map<string, string>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (name === wanted) {
      (await entry.load()).register(program);
    } else {
      program.command(name).description(entry.description);
      listed.set(name, entry.term);
    }
  }
  const help = new Help();
  program.configureHelp({
    ...program.configureHelp(),
    subcommandTerm: (cmd) => listed.get(cmd.name()) ?? help.subcommandTerm(cmd),
  });
}

/**
 * The command's name: the first word not an option (`vwh --log-format json run`: the format's value is skipped).
 * Undefined for `vwh`, `vwh --help` and `vwh help`.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  const args = argv.slice(2);
  const words = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '--log-format');
  return words[0] === 'help' ? words[1] : words[0];
}

/** A mistyped command: a USAGE error (exit 64) with the command it most likely meant, as a mistyped flag gets. */
export async function unknownCommand(word: string): Promise<VwhError> {
  // the config's helper for a mistyped field, loaded only for a mistyped command (the config module loads zod)
  const { nearestKey } = await import('../../core/config.js');
  const near = nearestKey(word, Object.keys(COMMANDS));
  return new VwhError(
    'USAGE',
    `Unknown command ${JSON.stringify(word.slice(0, 40))}.${near ? ` Did you mean ${near}?` : ''} ` +
      `Commands: ${Object.keys(COMMANDS).join(', ')} (vwh --help).`,
  );
}
