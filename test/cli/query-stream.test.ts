/**
 * `vwh query` streams (issue 55, item 4): ten million rows of CSV, and of JSON lines, go through a pipe from a child
 * process whose JavaScript heap is capped at 64 MB, every row out and exit 0 (holding the rows ran out of heap on
 * one tenth of that). The table reads only the rows it shows: a table of ten million rows answers at once. The
 * built CLI, a real child process, a real DuckDB file.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/warehouse/duckdb.js';
import { BIN } from '../fixtures.js';
import { tempDir } from '../ops/support.js';
import { vwh } from './support.js';

const t = tempDir('vwh-query-stream-');
const db = join(t.dir, 'w.duckdb');
afterAll(() => t.cleanup());
beforeAll(async () => {
  (await Database.open(db)).close();
});

/** `vwh query …` with a 64 MB heap, its stdout read from a pipe: lines counted, first and last kept. */
function streamed(
  args: string[],
): Promise<{ code: number | null; lines: number; first: string; last: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'query', '--db', db, ...args], {
    env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=64', NO_COLOR: '1' },
  });
  let lines = 0;
  let first = '';
  let tail = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    if (!first) first = chunk.slice(0, chunk.indexOf('\n'));
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
    tail = (tail + chunk).slice(-200);
  });
  child.stderr.on('data', (c) => {
    stderr += String(c);
  });
  return new Promise((done) =>
    child.on('close', (code) => {
      const all = tail.trimEnd().split('\n');
      done({ code, lines, first, last: all[all.length - 1] ?? '', stderr });
    }),
  );
}

const TEN_MILLION = 10_000_000;

describe('vwh query streams its rows', () => {
  it('ten million rows of CSV through a pipe with a 64 MB heap: every row, exit 0', async () => {
    const r = await streamed(['--format', 'csv', 'select range as n, range % 7 as d from range(10000000)']);
    expect(r.stderr).not.toMatch(/heap|out of memory/i);
    expect(r.code).toBe(0);
    expect(r.first).toBe('n,d');
    expect(r.lines).toBe(TEN_MILLION + 1);
    expect(r.last).toBe(`${TEN_MILLION - 1},${(TEN_MILLION - 1) % 7}`);
  }, 300_000);

  it('ten million JSON lines the same', async () => {
    const r = await streamed(['--format', 'json', 'select range as n from range(10000000)']);
    expect(r.code).toBe(0);
    expect(r.first).toBe('{"n":0}');
    expect(r.lines).toBe(TEN_MILLION);
    expect(r.last).toBe(`{"n":${TEN_MILLION - 1}}`);
  }, 300_000);

  it('the table reads only the rows it shows', async () => {
    const r = await streamed(['--max-rows', '3', 'select range as n from range(10000000)']);
    expect(r.code).toBe(0);
    expect(r.lines).toBe(2 + 3 + 1);
    expect(r.last).toBe('(3 rows shown, more not read: --max-rows, or --format csv for all)');
  }, 60_000);
});

describe('vwh query on more than one statement (issue 56)', () => {
  it('refuses it, saying why and what to do, rather than printing one result without a word (exit 64)', async () => {
    const r = await vwh(['query', '--db', db, 'select 1 as a; select 2 as b']);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('The query has 2 statements; vwh query runs one');
    expect(r.stderr).toContain('UNION ALL');
    // one statement with its trailing semicolon is one
    const one = await vwh(['query', '--db', db, '--format', 'csv', 'select 1 as a;']);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe('a\n1\n');
  }, 30_000);
});
