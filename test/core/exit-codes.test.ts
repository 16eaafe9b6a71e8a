/**
 * One table of exit codes (issue 56): EXIT_CODES in src/core/errors.ts, the README's table, docs/errors.md's and the
 * "Exit codes" section at the end of every command's --help say the same, and each code means one thing. The
 * --help texts come from the built CLI, a real child process.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, ExitCode, exitCodesHelp } from '../../src/core/errors.js';
import { BIN, ROOT } from '../fixtures.js';

/** `| code | meaning |` rows of a markdown table whose first cell is a number. */
function tableRows(markdown: string): Map<number, string> {
  const rows = new Map<number, string>();
  for (const line of markdown.split('\n')) {
    const m = /^\| (\d+) \| (.+) \|$/.exec(line);
    if (m) rows.set(Number(m[1]), m[2] ?? '');
  }
  return rows;
}

/** Every command a user can run, with its subcommands: the leaves of `vwh --help`. */
const COMMANDS = [
  ['run'],
  ['schedule'],
  ['status'],
  ['serve'],
  ['openapi'],
  ['sync'],
  ['models', 'build'],
  ['models', 'run'],
  ['models', 'test'],
  ['models', 'plan'],
  ['models', 'ls'],
  ['models', 'docs'],
  ['query'],
  ['export', 'parquet'],
  ['export', 'arrow'],
  ['export', 'recover'],
  ['events', 'listen'],
  ['doctor'],
  ['report'],
  [],
];

describe('the exit codes', () => {
  it('mean one thing each: no code twice in the table, and the names of ExitCode are in it', () => {
    const codes = EXIT_CODES.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of Object.values(ExitCode)) expect(codes).toContain(code);
    // status --check's stale is its own code, not partial's 2 (issue 56)
    expect(EXIT_CODES.find((e) => e.code === 2)?.meaning).toMatch(/^partial/);
    expect(EXIT_CODES.find((e) => e.code === ExitCode.stale)?.meaning).toMatch(/^stale/);
  });

  it('are the same table in the README and in docs/errors.md', () => {
    for (const file of ['README.md', 'docs/errors.md']) {
      const rows = tableRows(readFileSync(`${ROOT}/${file}`, 'utf8'));
      expect([...rows.keys()], file).toEqual(EXIT_CODES.map((e) => e.code));
      for (const e of EXIT_CODES) expect(rows.get(e.code), `${file}: ${e.code}`).toBe(e.meaning);
    }
  });

  describe("every command's --help", () => {
    it.each(COMMANDS.map((c) => [c.join(' ') || '(vwh)', c] as const))(
      '%s ends with an Exit codes section whose codes mean what the table says',
      (_name, words) => {
        const help = spawnSync(process.execPath, [BIN, ...words, '--help'], { encoding: 'utf8', cwd: ROOT });
        expect(help.status).toBe(0);
        const section = help.stdout.split('\nExit codes')[1];
        expect(section, 'no Exit codes section').toBeDefined();
        const lines = (section ?? '').split('\n').slice(1);
        const listed = lines.map((l) => /^ {2}(\d+) +(.*)$/.exec(l)).filter((m) => m !== null);
        expect(listed.length).toBeGreaterThan(1);
        for (const m of listed) {
          const entry = EXIT_CODES.find((e) => e.code === Number(m[1]));
          expect(entry, `code ${m[1]} is not in the table`).toBeDefined();
          expect(m[2]?.startsWith(entry?.meaning ?? '?'), `${m[1]}: ${m[2]}`).toBe(true);
        }
        // a usage error is possible on every command
        expect(listed.map((m) => Number(m[1]))).toContain(ExitCode.usage);
      },
      20_000,
    );
  });

  it("writes a command's note after the table's meaning, never instead of it", () => {
    expect(exitCodesHelp([0, 5], { 5: 'see vwh status' })).toMatch(
      / {2}5 {4}stale \(vwh status\): .*; see vwh status$/m,
    );
  });
});
