#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { EXIT_CODES, ExitCode, exitCodesHelp, isVwhError, redact, VwhError } from '../core/errors.js';
import { describeFsError } from '../core/folders.js';
import {
  checkedLogFormat,
  jsonLine,
  LOG_FORMAT_ENV,
  type LogFormat,
  parseLogFormat,
  setLogFormat,
} from '../core/log.js';
import { COMMANDS, commandOf, registerCommands, unknownCommand } from './commands/index.js';
import { VERSION } from './version.js';

/**
 * `--log-format human|json`, an option of the program that every command takes (before or after its name, listed
 * under "Global Options" in each command's --help); any other value is a USAGE error (exit 64).
 */
function logFormatOption(): Option {
  return new Option(
    '--log-format <format>',
    'human (default) or json: one JSON object per line (also VWH_LOG_FORMAT, "logFormat" in the config)',
  ).argParser((value: string) => checkedLogFormat(value));
}

/** The value of `--name value` or `--name=value` on the command line (the last one given). */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  argv.forEach((a, i) => {
    if (a === name) value = argv[i + 1];
    else if (a.startsWith(`${name}=`)) value = a.slice(name.length + 1);
  });
  return value;
}

/**
 * The output's format, before any command runs (so that even a usage error has it): --log-format, else
 * VWH_LOG_FORMAT, else `logFormat` in the config (--config, else ./vwh.config.json), else human. A value that is no
 * format is reported by whoever reads it: commander for the flag, the config's schema for the file; the variable's
 * is `invalid` here.
 */
export function chooseLogFormat(argv: readonly string[]): { format: LogFormat; invalid?: string } {
  const flag = parseLogFormat(flagValue(argv, '--log-format'));
  const env = process.env[LOG_FORMAT_ENV];
  const fromEnv = parseLogFormat(env);
  const fallback = flag ?? fromEnv ?? configLogFormat(flagValue(argv, '--config') ?? 'vwh.config.json') ?? 'human';
  if (!flag && env !== undefined && env !== '' && !fromEnv) {
    return {
      format: fallback,
      invalid: `${LOG_FORMAT_ENV} must be human or json, got ${JSON.stringify(env.slice(0, 40))}.`,
    };
  }
  return { format: fallback };
}

/** The config's `logFormat`, read without its schema (the command checks the whole file when it loads it). */
function configLogFormat(path: string): LogFormat | undefined {
  try {
    return parseLogFormat((JSON.parse(readFileSync(path, 'utf8')) as { logFormat?: unknown }).logFormat);
  } catch {
    return undefined;
  }
}

/** An error as JSON mode writes it: the message, its code and the exit code each in a field of its own. */
function errorEvent(message: string, code: string, exitCode: number): string {
  return jsonLine('error', message, { code, exit_code: exitCode });
}

/** The program for `argv`: its command (the one `argv` runs) loaded from its file, the others listed by name. */
export async function buildProgram(argv: readonly string[], options: { jsonErrors?: boolean } = {}): Promise<Command> {
  const program = new Command();
  // Before the subcommands exist, so that they inherit it: a usage error commander reports is one JSON line (the
  // hint to run --help is left out: it is not an event).
  if (options.jsonErrors) {
    program.configureOutput({
      writeErr: (text) => {
        if (!text.startsWith('(run with --help'))
          process.stderr.write(errorEvent(text.trim(), 'USAGE', ExitCode.usage));
      },
    });
  }
  program
    .name('vwh')
    .description('Visibility Warehouse: sync a brand-visibility API into DuckDB, model it, export it.')
    .version(VERSION, '-V, --version')
    .addOption(logFormatOption())
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `${exitCodesHelp(EXIT_CODES.map((e) => e.code))}

Output: lines a person reads (colour on a terminal only; NO_COLOR turns it off, FORCE_COLOR on), or with
--log-format json (VWH_LOG_FORMAT=json, "logFormat" in the config) one JSON object per line, errors with their
"code" and "exit_code".`,
    );
  // Before the subcommands exist, so that they inherit it: commander then throws instead of calling process.exit.
  program.exitOverride();
  await registerCommands(program, argv);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const chosen = chooseLogFormat(argv);
  setLogFormat(chosen.format);
  const json = chosen.format === 'json';
  const fail = (message: string, code: string, exitCode: number) =>
    process.stderr.write(json ? errorEvent(message, code, exitCode) : `vwh: ${message}\n`);
  // A command reports its exit code in process.exitCode. Only this call's counts: one left by an earlier call in the
  // same process (a test calling main() in turn; `vwh schedule` has none) would otherwise end a run that succeeded.
  process.exitCode = undefined;
  try {
    if (chosen.invalid) throw new VwhError('USAGE', chosen.invalid);
    // `vwh wrker --help` is a mistyped command, not a request for the general help
    const word = commandOf(argv);
    if (word !== undefined && !(word in COMMANDS)) throw await unknownCommand(word);
    // JSON mode: the version is an event too (--help stays the text it is)
    if (json && word === undefined && argv.some((a) => a === '--version' || a === '-V')) {
      process.stdout.write(jsonLine('info', `vwh ${VERSION}`, { version: VERSION }));
      return ExitCode.ok;
    }
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
      fail(json ? error.message : `${error.message} [${error.code}]`, error.code, error.exitCode);
      return error.exitCode;
    }
    // a file-system error the commands did not foresee (a disk filled up, a folder removed under them): one line
    const fs = describeFsError(error);
    if (fs) {
      fail(redact(fs), 'INTERNAL', ExitCode.failure);
      return ExitCode.failure;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    fail(`unexpected error: ${redact(message)}`, 'INTERNAL', ExitCode.failure);
    return ExitCode.failure;
  }
}
