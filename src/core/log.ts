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
}

/**
 * JSON lines when not on a terminal (cron, CI), readable lines on a terminal. Every line passes through `redact`,
 * so a key that slipped into a message or a field never reaches the output.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const format: LogFormat = options.format ?? ((stream as NodeJS.WriteStream).isTTY ? 'pretty' : 'json');
  const min = rank[options.level ?? (process.env.VWH_LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? 20;
  const base = options.base ?? {};

  const write = (level: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (rank[level] < min) return;
    const all = { ...base, ...fields };
    let line: string;
    if (format === 'json') {
      line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...all }, jsonReplacer);
    } else {
      const extra = Object.entries(all)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, jsonReplacer)}`)
        .join(' ');
      line = `${level === 'info' ? '' : `${level.toUpperCase()} `}${msg}${extra ? `  ${extra}` : ''}`;
    }
    stream.write(`${redact(line)}\n`);
  };

  return {
    format,
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...options, format, base: { ...base, ...fields } }),
  };
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
