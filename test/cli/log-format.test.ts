/**
 * What vwh prints, as cron and a person see it: lines a person reads by default, wherever they go (a pipe, a file,
 * cron mail: the run's "Where to look" and its queries included); with --log-format json, VWH_LOG_FORMAT=json or
 * "logFormat": "json" every line of stdout and stderr of every command is one JSON object, an error's code and exit
 * code in fields of their own; on a terminal (a pseudo-TTY from util-linux's `script`) readable lines, no JSON blob,
 * in colour unless NO_COLOR is set, the rows landed listed once. The compiled CLI, a real child process, the
 * embedded world.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder with an empty config, and the arguments of a small embedded run in it (not the demo's seed). */
function world(seed: number): { dir: string; args: string[] } {
  const dir = tempDir('vwh-logs-').dir;
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
  it('writes only JSON lines, on stdout and on stderr, the summary as a run summary event', () => {
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
  }, 120_000);
});

/** Every non-empty line of `text` parsed as JSON, or a failure naming the line that is not. */
function jsonLines(text: string, what: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`${what}: not JSON: ${line}`);
      }
    });
}

describe('vwh through a pipe (cron, CI, | tee)', () => {
  it('prints what a person reads by default: the summary, where to look and the queries, without colour', () => {
    const { dir, args } = world(13);
    const run = spawnSync(process.execPath, [BIN, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, VWH_LOG_FORMAT: undefined },
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Where to look:');
    expect(run.stdout).toContain('Query it next:');
    expect(run.stdout.match(/ query --db .* "select /g)?.length).toBe(3);
    const all = run.stdout + run.stderr;
    expect(all).not.toMatch(ANSI_COLOUR);
    for (const line of all.split('\n')) expect(line).not.toMatch(/^\{"ts"/);
    // the rows landed per table are listed once, in the summary (not again by the sync and its stage's log line)
    expect(all.match(/raw\.chats \d/g)?.length).toBe(1);

    // every command, every line of stdout and stderr JSON, whichever of the three ways asks for it
    const db = join(dir, 'w.duckdb');
    const config = join(dir, 'json.config.json');
    writeFileSync(config, JSON.stringify({ logFormat: 'json' }));
    const viaFlag = (a: string[]) => ({ argv: [...a, '--log-format', 'json'], env: {} });
    const viaEnv = (a: string[]) => ({ argv: a, env: { VWH_LOG_FORMAT: 'json' } });
    const viaConfig = (a: string[]) => ({ argv: [...a, '--config', config], env: {} });
    const table: Array<[{ argv: string[]; env: NodeJS.ProcessEnv }, number]> = [
      [viaFlag(['status', '--db', db]), 0],
      [viaEnv(['status', '--check', '--db', db]), 0],
      [viaConfig(['status', '--db', db]), 0],
      [viaFlag(['doctor', '--db', db]), 0],
      [viaConfig(['query', '--db', db, 'select 1 as one, current_date as today']), 0],
      [viaEnv(['query', '--db', db, 'select * from nowhere']), 64],
      [viaEnv(['report', 'weekly_visibility', '--db', db, '--out', join(dir, 'w.csv')]), 0],
      [viaFlag(['report', 'html', '--db', db, '--out', join(dir, 'r.html')]), 0],
      [viaEnv(['report', '--list']), 0],
      [viaEnv(['report', 'weekly_visibilty', '--db', db]), 64],
      [viaEnv(['export', 'parquet', '--db', db, '--out', join(dir, 'lake2')]), 0],
      [viaFlag(['export', 'arrow', '--db', db, '--out', join(dir, 'arrow')]), 0],
      [viaEnv(['export', 'recover', '--out', join(dir, 'lake2')]), 0],
      [viaEnv(['models', 'ls']), 0],
      [viaEnv(['models', 'plan', '--db', db]), 0],
      [viaFlag(['models', 'test', '--db', db, '--target-dir', join(dir, 'target')]), 0],
      [viaEnv(['models', 'docs', '--db', db, '--target-dir', join(dir, 'target')]), 0],
      [viaEnv(['openapi', '--out', join(dir, 'openapi.json')]), 0],
      [viaEnv(['sync', '--embedded', '--plan', '--db', join(dir, 'plan.duckdb')]), 0],
      [viaEnv(['--version']), 0],
      [viaEnv(['wrker']), 64],
      [viaFlag(['query', '--db', join(dir, 'nope.duckdb'), 'select 1']), 64],
      [viaEnv(['run', '--today', 'yesterday']), 64],
    ];
    for (const [{ argv, env }, exit] of table) {
      const what = `vwh ${argv.join(' ')}`;
      const r = spawnSync(process.execPath, [BIN, ...argv], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      expect(r.status, `${what}: ${r.stderr}`).toBe(exit);
      const events = [...jsonLines(r.stdout, what), ...jsonLines(r.stderr, what)];
      expect(events.length, what).toBeGreaterThan(0);
      for (const e of events) {
        if (!('ts' in e)) continue; // a --json document (status, doctor) is the document itself
        expect(Object.keys(e).slice(0, 3), what).toEqual(['ts', 'level', 'msg']);
      }
      const errors = events.filter((e) => e.level === 'error' && 'code' in e);
      if (exit !== 0) {
        expect(errors.length, what).toBe(1);
        expect(errors[0]?.exit_code, what).toBe(exit);
        expect(errors[0]?.code, what).toBe('USAGE');
        expect(String(errors[0]?.msg), what).not.toMatch(/\[USAGE\]$/);
      }
    }
  }, 300_000);
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

  it('prints readable lines without a JSON blob, in colour, and without colour under NO_COLOR', () => {
    const w = world(12);
    const coloured = onTty({}, w);
    expect(coloured).toMatch(/run \S+: .*succeeded.* \(exit 0\)/);
    expect(coloured).toMatch(/team demo: sync succeeded/);
    expect(coloured).toMatch(ANSI_COLOUR);
    for (const line of coloured.split(/\r?\n|\r/)) expect(line).not.toMatch(JSON_BLOB);
    // the rows landed per table, once: in the summary, not also in the sync's end and its stage's line (issue 56)
    expect(coloured.match(/raw\.chats \d/g)?.length).toBe(1);
    expect(coloured).toContain('Where to look:');

    // the same warehouse again (a quick second run): colour is the terminal's and NO_COLOR's business only
    const plain = onTty({ NO_COLOR: '1' }, w);
    expect(plain).toMatch(/run \S+: succeeded \(exit 0\)/);
    expect(plain).not.toMatch(ANSI_COLOUR);
    for (const line of plain.split(/\r?\n|\r/)) expect(line).not.toMatch(JSON_BLOB);
  }, 120_000);
});
