import { redact, VwhError } from './errors.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** `human`: lines a person reads (the default, as dbt's `text`); `json`: one JSON object per line, every line. */
export type LogFormat = 'human' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['human', 'json'];
/** The variable that sets the format when no --log-format is given (before the config's `logFormat`). */
export const LOG_FORMAT_ENV = 'VWH_LOG_FORMAT';

/**
 * `human` or `json` from what a user typed, or undefined for anything else. `pretty`, the format's name before
 * `human`, is still taken.
 */
export function parseLogFormat(value: unknown): LogFormat | undefined {
  if (value === 'pretty') return 'human';
  return LOG_FORMATS.find((f) => f === value);
}

/** `--log-format`'s value, or a USAGE error saying what it takes (exit 64). */
export function checkedLogFormat(value: string, name = '--log-format'): LogFormat {
  const format = parseLogFormat(value);
  if (format) return format;
  throw new VwhError('USAGE', `${name} must be human or json, got ${JSON.stringify(value.slice(0, 40))}.`);
}

let processFormat: LogFormat | undefined;

/**
 * The format of this process's output, chosen once by the CLI before a command runs: --log-format, else
 * VWH_LOG_FORMAT, else the config's `logFormat`, else human (src/cli/main.ts). Whether stdout is a terminal does not
 * choose it: cron mail and `| tee` get what a terminal gets, without the colour.
 */
export function setLogFormat(format: LogFormat | undefined): void {
  processFormat = format;
}

/** The format set by setLogFormat, else VWH_LOG_FORMAT's (when valid), else human. */
export function logFormat(): LogFormat {
  return processFormat ?? parseLogFormat(process.env[LOG_FORMAT_ENV]) ?? 'human';
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  readonly format: LogFormat;
}

export interface LoggerOptions {
  format?: LogFormat;
  level?: LogLevel;
  stream?: NodeJS.WritableStream;
  base?: Record<string, unknown>;
  /** Colour in the pretty format (default: on a terminal, unless NO_COLOR is set). */
  color?: boolean;
}

/**
 * Colour only on a terminal, and never when NO_COLOR is set to anything but the empty string (no-color.org);
 * FORCE_COLOR (set, and not `0` or `false`) asks for it off a terminal too (a CI log that shows colour).
 */
export function wantsColor(stream: NodeJS.WritableStream | undefined): boolean {
  const noColor = process.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  const force = process.env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force !== 'false') return true;
  return Boolean((stream as NodeJS.WriteStream | undefined)?.isTTY);
}

const CODES = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Paint = keyof typeof CODES;

/** `text` in a colour when `on`, unchanged otherwise. */
export function paint(on: boolean, colour: Paint, text: string): string {
  return on ? `\x1b[${CODES[colour]}m${text}\x1b[0m` : text;
}

/**
 * Fields as a person reads them: `key=value`, a list as `a,b,c`, a nested object flattened to `key.sub=value`, so
 * the pretty format never shows a JSON blob.
 */
export function prettyFields(fields: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const name = `${prefix}${key}`;
    if (value instanceof Error) out.push(`${name}=${value.message}`);
    else if (Array.isArray(value)) {
      if (value.every((v) => v === null || typeof v !== 'object')) out.push(`${name}=${value.join(',')}`);
      else out.push(...prettyFields({ ...value }, `${name}.`));
    } else if (value !== null && typeof value === 'object')
      out.push(...prettyFields(value as Record<string, unknown>, `${name}.`));
    else out.push(`${name}=${String(value)}`);
  }
  return out;
}

const LEVEL_COLOUR: Record<LogLevel, Paint> = { debug: 'dim', info: 'cyan', warn: 'yellow', error: 'red' };

/**
 * Readable lines, or JSON lines (`format`, else the process's: logFormat()). Every line passes through `redact`,
 * so a key that slipped into a message or a field never reaches the output.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const format: LogFormat = options.format ?? logFormat();
  const min = rank[options.level ?? (process.env.VWH_LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? 20;
  const base = options.base ?? {};
  const color = options.color ?? wantsColor(stream);

  const write = (level: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (rank[level] < min) return;
    const all = { ...base, ...fields };
    if (format === 'json') {
      stream.write(jsonLine(level, msg, all));
      return;
    }
    const extra = prettyFields(all).join(' ');
    const head = level === 'info' ? '' : `${paint(color, LEVEL_COLOUR[level], level.toUpperCase())} `;
    stream.write(`${redact(`${head}${msg}${extra ? `  ${paint(color, 'dim', extra)}` : ''}`)}\n`);
  };

  return {
    format,
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...options, format, color, base: { ...base, ...fields } }),
  };
}

/** One JSON log line (`ts`, `level`, `msg`, fields), for the few places that write an event without a logger. */
export function jsonLine(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): string {
  return `${redact(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }, jsonReplacer))}\n`;
}

/**
 * A line for the user outside any logger (a problem a command reports at its end): `vwh: text` as it is, or a JSON
 * event at `level` when the logs are JSON.
 */
export function userLine(text: string, format: LogFormat = logFormat(), level: LogLevel = 'warn'): string {
  const bare = text.replace(/^vwh: /, '');
  return format === 'json' ? jsonLine(level, bare) : `vwh: ${bare}\n`;
}

/** A note on stderr beside a command's output (which file a reader answers from): `vwh: …`, or a JSON event. */
export function noteLine(line: string): void {
  process.stderr.write(userLine(line, logFormat(), 'info'));
}

/**
 * A line of a command's output as the process's format has it: `text` as it is, or one JSON event (`msg` the text's
 * first line, with `fields`) in JSON mode. For what a command prints beside its logs (a summary, a file written).
 */
export function outputLine(text: string, fields: Record<string, unknown> = {}, level: LogLevel = 'info'): string {
  if (logFormat() === 'json') return jsonLine(level, text.split('\n')[0] ?? '', fields);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A JSON document a command prints (`--json`): indented for a person, one line in JSON mode (every line parses). */
export function jsonDocument(value: unknown): string {
  return `${logFormat() === 'json' ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/** A logger that drops everything: for tests and library callers that bring their own. */
export const silentLogger: Logger = {
  format: 'json',
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
