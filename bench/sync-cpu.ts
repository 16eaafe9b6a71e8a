/**
 * CPU per request of one backfill (not a timed bench; run by hand): a reference server and one `vwh sync`-like
 * process (the sync-scale bench's child), optionally under `--cpu-prof`. Prints the sync process's user + sys CPU ÷
 * requests with the load average.
 *
 *   node dist/bench/sync-cpu.js PROJECTS PROMPTS DAYS [PROFILE_DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServeChild } from './lib.js';
import type { Run } from './sync-scale-run.js';

const [projects = '3', prompts = '20', days = '60', profileDir] = process.argv.slice(2);
const TODAY = '2026-11-20';
const WINDOW_MS = 2500;

function syncChild(input: object): Promise<Run> {
  const script = fileURLToPath(new URL('./sync-scale-run.js', import.meta.url));
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, script, JSON.stringify(input)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as Run) : reject(new Error(`exit ${code}`)),
    );
  });
}

const server = await startServeChild(
  ['--seed', '5', '--today', TODAY, '--demo', '--projects', projects, '--prompts', prompts].concat([
    '--history-days',
    days,
    '--rate-window-ms',
    String(WINDOW_MS),
  ]),
);
const dir = mkdtempSync(join(tmpdir(), 'vwh-cpu-'));
const loadBefore = loadavg()[0]?.toFixed(2);
try {
  const job = { teamId: 'agency', baseUrl: server.url, apiKey: server.apiKey };
  const run = await syncChild({
    db: join(dir, 'w.duckdb'),
    job,
    today: TODAY,
    windowMs: WINDOW_MS,
    serverPid: server.pid,
  });
  const perRequest = Math.round((run.syncCpuMs / run.requests) * 100) / 100;
  process.stdout.write(
    `${JSON.stringify({ date: new Date().toISOString(), world: `${projects}x${prompts}x${days}`, load_before: loadBefore, load_after: loadavg()[0]?.toFixed(2), requests: run.requests, rows: run.rows, sync_cpu_ms: run.syncCpuMs, cpu_per_request_ms: perRequest, by_thread: run.syncCpuByThread })}\n`,
  );
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
