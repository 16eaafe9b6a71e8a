/**
 * vitest's globalSetup: dist/ built from the current sources before any test runs, since many tests run the built
 * CLI (`node dist/src/cli/bin.js`) as a user does and a stale dist/ would test old code. When dist/ is missing or
 * older than a file of src/, it is built once here (`npm run build`); when the build fails, the suite stops with tsc's errors and what to run. No test skips for
 * want of dist/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const BIN = join(ROOT, 'dist/src/cli/bin.js');

/** Newest modification time of the .ts files below `dir` (node_modules aside). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Why dist/ needs a build, or undefined when it is current. */
export function staleness(): string | undefined {
  if (!existsSync(BIN)) return 'dist/ is missing';
  return statSync(BIN).mtimeMs < newestSource(join(ROOT, 'src')) ? 'dist/ is older than src/' : undefined;
}

export default function setup(): void {
  const why = staleness();
  if (!why) return;
  process.stderr.write(`${why}: building it (npm run build) before the tests\n`);
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `${why} and the build failed: the tests that run the CLI would run old code or none. Fix the errors and run ` +
        `npm run build:\n${String(stdout)}${String(stderr)}`,
    );
  }
}
