/**
 * `vwh … | head`: the reader closes the pipe before vwh has written everything. vwh stops quietly with exit 0, as
 * `ls | head` does, instead of dying on an unhandled EPIPE with a stack trace.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../fixtures.js';

describe('a closed stdout', () => {
  it('ends vwh quietly with exit 0', async () => {
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
  }, 30_000);
});
