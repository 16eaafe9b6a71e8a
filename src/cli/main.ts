#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ExitCode, isVwhError, redact } from '../core/errors.js';
import { describeFsError } from '../core/folders.js';
import { jsonLine } from '../core/log.js';
import { registerCommands } from './commands/index.js';
import { VERSION } from './version.js';

/** `--log-format json` anywhere on the command line: then even a usage error is a JSON line. */
export function wantsJsonLogs(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--log-format=json' || (a === '--log-format' && argv[i + 1] === 'json'));
}

/** The program for `argv`: its command (the one `argv` runs) loaded from its file, the others listed by name. */
export async function buildProgram(argv: readonly string[], options: { jsonErrors?: boolean } = {}): Promise<Command> {
  const program = new Command();
  // Before the subcommands exist, so that they inherit it.
  if (options.jsonErrors)
    program.configureOutput({ writeErr: (text) => process.stderr.write(jsonLine('error', text.trim())) });
  program
    .name('vwh')
    .description('Visibility Warehouse: sync a brand-visibility API into DuckDB, model it, export it.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Exit codes:
  0   success
  1   unexpected failure (the message says what failed)
  2   partial: the run finished but rows were rejected or checks failed (see the summary)
  3   the API refused the key (missing, invalid, inactive or expired); nothing was written
  4   the warehouse file is locked by another process
  64  bad arguments or configuration`,
    );
  // Before the subcommands exist, so that they inherit it: commander then throws instead of calling process.exit.
  program.exitOverride();
  await registerCommands(program, argv);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const json = wantsJsonLogs(argv);
  const fail = (message: string) => process.stderr.write(json ? jsonLine('error', message) : `vwh: ${message}\n`);
  // A command reports its exit code in process.exitCode. Only this call's counts: one left by an earlier call in the
  // same process (a test calling main() in turn; `vwh schedule` has none) would otherwise end a run that succeeded.
  process.exitCode = undefined;
  try {
    const program = await buildProgram(argv, { jsonErrors: json });
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) {
        return ExitCode.ok;
      }
      return ExitCode.usage;
    }
    if (isVwhError(error)) {
      fail(`${error.message} [${error.code}]`);
      return error.exitCode;
    }
    // a file-system error the commands did not foresee (a disk filled up, a folder removed under them): one line
    const fs = describeFsError(error);
    if (fs) {
      fail(redact(fs));
      return ExitCode.failure;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    fail(`unexpected error: ${redact(message)}`);
    return ExitCode.failure;
  }
}
