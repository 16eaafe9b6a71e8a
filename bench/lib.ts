import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bench/results/ in the source tree, whether we run from bench/ (tsx) or dist/bench/ (built). */
export const resultsDir = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = here.includes(`${join('dist', 'bench')}`) ? join(here, '..', '..') : join(here, '..');
  return join(root, 'bench', 'results');
})();

export interface BenchResult {
  name: string;
  /** What was measured, in words, and the machine it ran on. */
  description: string;
  /** The headline ratios against a baseline measured in the same run. */
  ratios: Record<string, number>;
  /** Raw figures (ms, bytes, counts) behind the ratios. */
  figures: Record<string, number | string>;
  /** Targets the issue sets, and whether this run met them. */
  targets?: Record<string, { target: string; met: boolean }>;
  /** Tables behind the figures (per query, per size), where a flat record would not read. */
  details?: Record<string, unknown>;
}

export function writeResult(result: BenchResult): string {
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${result.name}.json`);
  const payload = {
    ...result,
    measured_at: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
  writeFileSync(file, `${JSON.stringify(payload, null, 2)}\n`);
  return file;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** A reference server in a child process (`vwh serve --port 0 …flags`), so its CPU and memory are not the bench's. */
export async function startServeChild(
  flags: string[],
): Promise<{ url: string; apiKey: string; pid: number | undefined; close(): void; cpuMs(): number | undefined }> {
  const bin = fileURLToPath(new URL('../src/cli/bin.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`vwh serve exited with ${code} before it was ready: ${out}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      const apiKey = /demo api key: (\S+)/.exec(out)?.[1];
      if (url && apiKey) resolve({ url, apiKey });
    });
  });
  child.removeAllListeners('exit');
  return { ...ready, pid: child.pid, close: () => child.kill('SIGTERM'), cpuMs: () => processCpuMs(child.pid) };
}

/**
 * CPU time (user + system, ms) of this process's threads so far, summed by thread name (Linux; empty elsewhere): the
 * main thread is the process's own name, libuv's pool `libuv-worker`, V8's GC and compiler helpers `V8 …`, DuckDB's
 * own threads `node` or `DuckDB…`.
 */
export function threadCpuMs(): Record<string, number> {
  const out: Record<string, number> = {};
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** CPU time (user + system, all threads) this process has used so far, in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** `n` rounded to two decimals, as the results files give their figures. */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** CPU time (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields 14 and 15 of /proc/<pid>/stat, after the command name in parentheses: utime and stime in clock ticks.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
