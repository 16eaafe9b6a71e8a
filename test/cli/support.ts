/**
 * The built CLI as a child process (`node dist/src/cli/bin.js …`, test/fixtures.ts's BIN): what a user runs, its exit
 * code, stdout and stderr. test/setup/build.ts builds dist/ before the suite.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { BIN, ROOT } from '../fixtures.js';
import { staleness } from '../setup/build.js';

/** Throws unless dist/ is built from the current sources (vitest's globalSetup builds it; this says so if not). */
export function requireBuilt(): void {
  const why = staleness();
  if (why) throw new Error(`${why}: run npm run build before this test`);
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `vwh args…` in `cwd` (default the repository); NO_COLOR and no API key unless `env` gives one. */
export function start(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  if (!options.env?.VWH_API_KEY) delete env.VWH_API_KEY;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += String(c);
  });
  child.stderr.on('data', (c) => {
    stderr += String(c);
  });
  const done = new Promise<Ran>((ok) => child.on('close', (code) => ok({ code, stdout, stderr })));
  return { child, done, output: () => stdout + stderr };
}

/** Runs `vwh args…` to its end. */
export function vwh(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return start(args, options).done;
}
