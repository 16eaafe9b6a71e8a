import { redact } from './errors.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'pretty' | 'json';

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
 * Colour only on a terminal, and never when NO_COLOR is set to anything but the empty string (no-color.org).
 */
export function wantsColor(stream: NodeJS.WritableStream | undefined): boolean {
  const noColor = process.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
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
 * JSON lines when not on a terminal (cron, CI), readable lines on a terminal. Every line passes through `redact`,
 * so a key that slipped into a message or a field never reaches the output.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const format: LogFormat = options.format ?? ((stream as NodeJS.WriteStream).isTTY ? 'pretty' : 'json');
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
export function userLine(text: string, format: LogFormat, level: LogLevel = 'warn'): string {
  const bare = text.replace(/^vwh: /, '');
  return format === 'json' ? jsonLine(level, bare) : `vwh: ${bare}\n`;
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
