/**
 * Runs before every test file (vitest.config.ts's setupFiles). The suite runs without per-file isolation (one
 * worker process runs file after file, its modules loaded once), so what a file changes in its process is put back
 * when the file ends, as a fresh process per file used to do: environment variables set or deleted, the working
 * directory, spies left on process.stdout and process.stderr, and process.exitCode (a command run in-process through
 * main() sets it), and the log format main() chose for the process (setLogFormat). The fixtures the file took from
 * test/fixtures.ts (temporary folders, reference worlds) are released then too.
 */
import { afterAll, beforeAll, vi } from 'vitest';
import { setLogFormat } from '../../src/core/log.js';
import { releaseFixtures } from '../fixtures.js';

let env: NodeJS.ProcessEnv = {};
let cwd = '';
let exitCode: typeof process.exitCode;

beforeAll(() => {
  env = { ...process.env };
  cwd = process.cwd();
  exitCode = process.exitCode;
});

afterAll(async () => {
  vi.restoreAllMocks();
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (process.env[name] !== value) process.env[name] = value;
  if (process.cwd() !== cwd) process.chdir(cwd);
  process.exitCode = exitCode;
  setLogFormat(undefined);
  await releaseFixtures();
});
