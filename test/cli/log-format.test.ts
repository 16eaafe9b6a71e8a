/**
 * What `vwh run` prints, as cron and a person see it: with `--log-format json` every line of stdout and stderr is one
 * JSON object (the banner and the summary included); on a terminal (a pseudo-TTY from util-linux's `script`) the
 * output is readable lines, no JSON blob, in colour unless NO_COLOR is set. The compiled CLI, a real child process,
 * the embedded world.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newestSource } from '../ops/soak-support.js';

const BIN = resolve('dist/src/cli/bin.js');
// The child runs the compiled CLI, which must be built after every source it could import (CI builds first).
const built = existsSync(BIN) && statSync(BIN).mtimeMs >= newestSource('src');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder with an empty config, and the arguments of a small embedded run in it (not the demo's seed). */
function world(seed: number): { dir: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-logs-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'vwh.config.json'), '{}');
  const args = ['run', '--db', join(dir, 'w.duckdb'), '--config', join(dir, 'vwh.config.json'), '--seed', String(seed)];
  return {
    dir,
    args: [...args, '--projects', '1', '--prompts', '2', '--history-days', '5', '--rate-window-ms', '200'],
  };
}

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[\\d+(;\\d+)*m`);
/** A JSON object or array of strings/objects inside a line: what a person should never have to read. */
const JSON_BLOB = /[{[]"|":\s*[{["\d]/;

describe('vwh run --log-format json', () => {
  it.skipIf(!built)(
    'writes only JSON lines, on stdout and on stderr, the summary as a run summary event (needs npm run build)',
    () => {
      const { dir, args } = world(11);
      const run = spawnSync(process.execPath, [BIN, ...args, '--log-format', 'json'], { cwd: dir, encoding: 'utf8' });
      expect(run.status).toBe(0);
      const lines = (text: string) => text.split('\n').filter((l) => l !== '');
      const events = [...lines(run.stdout), ...lines(run.stderr)].map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`not JSON: ${line}`);
        }
      });
      expect(events.length).toBeGreaterThan(20);
      for (const e of events) expect(Object.keys(e).slice(0, 3)).toEqual(['ts', 'level', 'msg']);
      const summary = lines(run.stdout)
        .map((l) => JSON.parse(l))
        .find((e) => e.msg === 'run summary');
      expect(summary?.status).toBe('succeeded');
      expect(summary?.stages.map((s: { stage: string }) => s.stage)).toEqual([
        'events',
        'sync',
        'models',
        'exports',
        'publish',
        'alerts',
      ]);
      // a usage error is a JSON line too
      const bad = spawnSync(process.execPath, [BIN, 'run', '--log-format', 'json', '--today', 'yesterday'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(bad.status).toBe(64);
      for (const line of lines(bad.stderr)) expect(() => JSON.parse(line)).not.toThrow();
      expect(bad.stderr).toContain('--today');
    },
    120_000,
  );
});

describe('vwh run on a terminal', () => {
  /** `vwh run` under a pseudo-terminal: util-linux's script gives the child a TTY on stdout and stderr. */
  const onTty = (env: NodeJS.ProcessEnv, { dir, args }: { dir: string; args: string[] }): string => {
    const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: undefined, ...env, TERM: 'xterm' },
    });
    expect(run.status).toBe(0);
    return run.stdout;
  };

  it.skipIf(!built)(
    'prints readable lines without a JSON blob, in colour, and without colour under NO_COLOR (needs npm run build)',
    () => {
      const w = world(12);
      const coloured = onTty({}, w);
      expect(coloured).toMatch(/run \S+: .*succeeded.* \(exit 0\)/);
      expect(coloured).toMatch(/team demo: sync succeeded/);
      expect(coloured).toMatch(ANSI_COLOUR);
      for (const line of coloured.split(/\r?\n|\r/)) expect(line).not.toMatch(JSON_BLOB);

      // the same warehouse again (a quick second run): colour is the terminal's and NO_COLOR's business only
      const plain = onTty({ NO_COLOR: '1' }, w);
      expect(plain).toMatch(/run \S+: succeeded \(exit 0\)/);
      expect(plain).not.toMatch(ANSI_COLOUR);
      for (const line of plain.split(/\r?\n|\r/)) expect(line).not.toMatch(JSON_BLOB);
    },
    120_000,
  );
});
