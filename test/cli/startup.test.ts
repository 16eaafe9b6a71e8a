/**
 * `vwh --help` and every command's --help start without loading DuckDB, HTTP, Arrow, ECharts or the reference server:
 * the built CLI runs in a child process whose module resolutions a loader hook records (fixtures/record-modules.mjs).
 * A command that really runs does load what it needs, so a hook that recorded nothing would fail too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Help } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { buildProgram } from '../../src/cli/main.js';
import { STREAM_NAMES } from '../../src/core/stream-names.js';
import { startReferenceServer } from '../../src/reference/index.js';
import { STREAMS } from '../../src/sync/streams/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { BIN, tempDir } from '../fixtures.js';

const HOOK = './test/cli/fixtures/record-modules.mjs';
/** Packages, and folders of ours, that no help screen needs. */
const HEAVY_PACKAGES = ['@duckdb/node-api', 'undici', 'apache-arrow', 'echarts', 'hono', '@hono/node-server', 'kysely'];
const HEAVY_FOLDERS = [
  '/dist/src/reference/',
  '/dist/src/api/',
  '/dist/src/export/',
  '/dist/src/models/runner',
  '/node_modules/@duckdb/',
];
/** Modules in those folders that import nothing and hold what a help text shows. */
const LIGHT = ['/dist/src/export/reports/format-names.js'];

const dir = tempDir('vwh-startup-').dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** Runs the built CLI; returns its exit code, stdout, and every module specifier and URL it resolved. */
function vwh(...args: string[]): { code: number | null; out: string; specifiers: Set<string>; urls: string[] } {
  const record = join(dir, `modules-${++runs}.txt`);
  const child = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], {
    env: { ...process.env, VWH_RECORD_MODULES: record },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const lines = existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean) : [];
  const pairs = lines.map((line) => line.split('\t'));
  return {
    code: child.status,
    out: child.stdout,
    specifiers: new Set(pairs.map(([specifier]) => specifier ?? '')),
    urls: pairs.map(([, url]) => url ?? ''),
  };
}

describe('vwh starts without its heavy modules', () => {
  it.each([
    [['--help'], 'Usage: vwh [options] [command]'],
    [['status', '--help'], 'Usage: vwh status [options]'],
    [['sync', '--help'], 'team_members'],
    [['models', 'build', '--help'], 'Usage: vwh models build [options]'],
    [['report', '--help'], '(csv|json|md)'],
    [['export', 'parquet', '--help'], '4    the warehouse, the run lock or the lake is held'],
  ])('vwh %j loads neither DuckDB, HTTP, Arrow, ECharts nor the reference server', (args, text) => {
    const run = vwh(...args);
    expect(run.code).toBe(0);
    expect(run.out).toContain(text);
    // The hook did record: the help itself is commander's.
    expect(run.specifiers).toContain('commander');
    expect(HEAVY_PACKAGES.filter((p) => run.specifiers.has(p))).toEqual([]);
    const heavy = run.urls.filter((url) => !LIGHT.some((light) => url.endsWith(light)));
    expect(heavy.filter((url) => HEAVY_FOLDERS.some((folder) => url.includes(folder)))).toEqual([]);
  });

  it('vwh --help loads no command file and not zod: only the table of commands', () => {
    const run = vwh('--help');
    expect(run.code).toBe(0);
    expect(run.out).toContain('query [options] <sql>');
    expect(run.urls.filter((url) => url.includes('/dist/src/cli/commands/'))).toEqual([
      expect.stringMatching(/\/cli\/commands\/index\.js$/),
    ]);
    expect(run.specifiers).not.toContain('zod');
    // a command loads its own file and no other command's
    const sync = vwh('sync', '--help');
    const commandFiles = new Set(sync.urls.filter((url) => url.includes('/dist/src/cli/commands/')));
    expect([...commandFiles].map((url) => url.replace(/.*\/commands\//, '')).sort()).toEqual(['index.js', 'sync.js']);
  });

  it('vwh query, run for real, does load DuckDB', async () => {
    const file = join(dir, 'w.duckdb');
    const db = await Database.open(file);
    await db.session.run('create table t as select 41 + 1 as answer');
    db.close();
    const run = vwh('query', '--db', file, '--format', 'csv', 'select answer from t');
    expect(run.code).toBe(0);
    expect(run.out).toBe('answer\n42\n');
    expect(run.urls.some((url) => url.includes('/node_modules/@duckdb/node-api/'))).toBe(true);
  });

  it('vwh query and vwh report load only what a read needs: no zod, no sync, models runner, pipeline, HTTP or lake (needs npm run build)', async () => {
    const file = join(dir, 'reader.duckdb');
    const db = await Database.open(file);
    await db.session.run('create table t as select 42 as answer');
    db.close();
    // in a folder without vwh.config.json: no config to check, so no schema to load
    const query = vwh('query', '--db', file, '--format', 'csv', 'select answer from t');
    expect(query.code).toBe(0);
    expect(query.out).toBe('answer\n42\n');
    expect(query.urls.some((url) => url.includes('/node_modules/@duckdb/node-api/'))).toBe(true);
    // each module once: DuckDB by require, not imported (an ES import of it costs its lexing, docs/lab notebook)
    expect(query.specifiers).not.toContain('@duckdb/node-api');
    for (const name of ['zod', 'yaml', 'kysely', 'undici', 'apache-arrow', 'p-queue', 'p-retry']) {
      expect(query.specifiers, name).not.toContain(name);
    }
    const ours = (urls: string[]) =>
      urls.filter((url) =>
        /\/dist\/src\/(sync|client|api|reference|ops\/stages|ops\/cluster|models\/(?!artifacts\/write)|export\/(?!result-text))/.test(
          url,
        ),
      );
    expect(ours(query.urls)).toEqual([]);
    // a table report loads the report's modules, not the lake's writer nor the HTML report
    const report = vwh('report', '--list');
    expect(report.code).toBe(0);
    expect(report.urls.filter((url) => /\/dist\/src\/export\/(lake|html)\//.test(url))).toEqual([]);
  });
});

describe('vwh run loads what its night uses', () => {
  it('against an API it loads neither the reference services, Arrow nor the cluster (pg, pg-boss)', async () => {
    // A key the server refuses: the run stops at the sync (exit 3), after the pipeline and its stages were loaded.
    const server = await startReferenceServer({
      port: 0,
      demo: true,
      seed: 5,
      projects: 1,
      prompts: 1,
      historyDays: 2,
    });
    const keyFile = join(dir, 'refused.key');
    writeFileSync(keyFile, 'vwh_test_refused_key_0000000000\n');
    const record = join(dir, 'modules-run.txt');
    try {
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            HOOK,
            BIN,
            'run',
            '--db',
            join(dir, 'run.duckdb'),
            '--base-url',
            server.url,
            '--key-file',
            keyFile,
          ],
          { env: { ...process.env, VWH_RECORD_MODULES: record }, stdio: 'ignore' },
        );
        child.once('exit', resolve);
      });
      expect(code).toBe(3);
    } finally {
      await server.close();
    }
    const urls = readFileSync(record, 'utf8')
      .split('\n')
      .map((line) => line.split('\t')[1] ?? '');
    // the run did load its stages, the sync's client and DuckDB
    expect(urls.some((url) => url.endsWith('/dist/src/ops/stages/exports.js'))).toBe(true);
    expect(urls.some((url) => url.includes('/node_modules/@duckdb/node-api/'))).toBe(true);
    expect(
      urls.filter((url) =>
        /\/dist\/src\/reference\/|\/dist\/src\/ops\/cluster\/|\/node_modules\/(hono|@hono|apache-arrow|pg|pg-boss)\//.test(
          url,
        ),
      ),
    ).toEqual([]);
  });
});

describe('the constants restated for help texts', () => {
  it('the table of commands lists each command as its own file declares it (term and description)', async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const program = await buildProgram(['node', 'vwh', name]);
      const command = program.commands.find((c) => c.name() === name);
      expect(command && [new Help().subcommandTerm(command), command.description()], name).toEqual([
        entry.term,
        entry.description,
      ]);
    }
  });

  it('STREAM_NAMES lists the streams of STREAMS, in their order', () => {
    expect(STREAM_NAMES).toEqual(STREAMS.map((s) => s.name));
  });
});
