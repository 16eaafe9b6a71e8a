/**
 * `vwh … | head`: the reader closes the pipe before vwh has written everything. vwh stops quietly with exit 0, as
 * `ls | head` does, instead of dying on an unhandled EPIPE with a stack trace.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newestSource } from '../ops/soak-support.js';

const BIN = 'dist/src/cli/bin.js';
// The child runs the compiled CLI, which must be built after every source it could import (CI builds first).
const built = existsSync(BIN) && statSync(BIN).mtimeMs >= newestSource('src');

describe('a closed stdout', () => {
  it.skipIf(!built)(
    'ends vwh quietly with exit 0 (needs npm run build)',
    async () => {
      // `openapi` writes some 450 KB, far past a pipe's buffer; the reader takes the first chunk and closes
      const child = spawn(process.execPath, [BIN, 'openapi'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let first = '';
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      child.stdout.once('data', (chunk) => {
        first = String(chunk);
        child.stdout.destroy();
      });
      const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
      expect(first.length).toBeGreaterThan(0);
      expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
      expect(code).toBe(0);
    },
    30_000,
  );
});
