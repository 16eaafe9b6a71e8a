/**
 * The README's first command: `vwh run` on the embedded default (reference services, sync, models, publish), run
 * from another working directory, twice, while a separate process holds the published copy open read-only; then
 * `vwh query` on what it built. Real HTTP on port 0, real DuckDB files, a real second process.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { type NightlyFlags, runNightly } from '../../src/ops/nightly.js';
import type { PipelineResult } from '../../src/ops/pipeline.js';
import { runQuery } from '../../src/ops/query.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { capture, quiet, tempDir, tinyWorld } from './support.js';

const ROOT = resolve(__dirname, '../..');

/** A reader like a BI tool: opens the published copy read-only and keeps it open, answering queries on stdin. */
function startReader(path: string): { ask(line: string): Promise<string>; child: ChildProcessWithoutNullStreams } {
  const script = `
    import { DuckDBInstance } from '@duckdb/node-api';
    import { createInterface } from 'node:readline';
    let instance = await DuckDBInstance.create(${JSON.stringify(path)}, { access_mode: 'READ_ONLY' });
    let conn = await instance.connect();
    const ask = async () => {
      const r = await conn.runAndReadAll("select count(distinct run_id)::int as runs, max(date)::varchar as last from ops.pipeline_runs, raw.chats");
      return JSON.stringify(r.getRowObjectsJS()[0]);
    };
    console.log('ready ' + await ask());
    for await (const line of createInterface({ input: process.stdin })) {
      if (line === 'reconnect') { conn.closeSync(); instance.closeSync(); instance = await DuckDBInstance.create(${JSON.stringify(path)}, { access_mode: 'READ_ONLY' }); conn = await instance.connect(); }
      console.log(await ask());
    }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  const waiters: Array<(l: string) => void> = [];
  lines.on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else queue.push(l);
  });
  const next = () => new Promise<string>((r) => (queue.length ? r(queue.shift() as string) : waiters.push(r)));
  return {
    child,
    ask: async (line: string) => {
      if (line) child.stdin.write(`${line}\n`);
      return next();
    },
  };
}

describe('vwh run on the embedded default, then vwh query', () => {
  const t = tempDir('vwh-run-');
  let first: PipelineResult;
  let printed = '';
  const cwd = process.cwd();
  const flags = (today: string): NightlyFlags => tinyWorld(t.db, today);

  beforeAll(async () => {
    // From another directory: the shipped models are the default models folder wherever the command runs.
    process.chdir(t.dir);
    try {
      const { out, text } = capture();
      // the summary a person reads (with --log-format json it is one JSON event instead)
      // --db relative to that directory: every path printed is absolute
      first = await runNightly({ ...flags('2026-04-10'), db: 'w.duckdb', logFormat: 'human' }, { out, logger: quiet });
      printed = text();
    } finally {
      process.chdir(cwd);
    }
  }, 300_000);
  afterAll(() => t.cleanup());

  it('says on its first line that it runs on the embedded services, and records every stage in the ledger', async () => {
    const lines = printed.split('\n');
    // run from another directory: the first line names the absolute warehouse it writes, and that it is new
    expect(lines[0]).toBe(
      `vwh run: writing ${t.db} (new: nothing there yet, so this run syncs the whole history); published copy ${join(t.dir, 'published', 'w.duckdb')}`,
    );
    expect(lines[1]).toMatch(/^vwh run: no API key configured, so this run uses the embedded reference/);
    expect(first.exitCode).toBe(0);
    expect(first.stages.map((s) => [s.name, s.outcome.status])).toEqual([
      ['events', 'succeeded'],
      ['sync', 'succeeded'],
      ['models', 'succeeded'],
      ['exports', 'succeeded'],
      ['publish', 'succeeded'],
      ['alerts', 'succeeded'],
    ]);
    const db = await Database.open(t.db, { access_mode: 'READ_ONLY' });
    try {
      const rows = await db.session.all<{ stage: string; status: string; counts: string }>(
        'select stage, status, counts::varchar as counts from ops.pipeline_runs where run_id = ? order by started_at, stage',
        [first.runId],
      );
      expect(rows.map((r) => `${r.stage}:${r.status}`).sort()).toEqual([
        'alerts:succeeded',
        'events:succeeded',
        'exports:succeeded',
        'models:succeeded',
        'publish:succeeded',
        'run:succeeded',
        'sync:succeeded',
      ]);
      const sync = JSON.parse(rows.find((r) => r.stage === 'sync')?.counts ?? '{}');
      expect(sync.requests).toBeGreaterThan(0);
      expect(Number(await db.session.scalar('select count(*) from marts.brand_visibility_daily'))).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    expect(printed).toContain(`published copy  ${join(t.dir, 'published', 'w.duckdb')}`);
    expect(printed).toContain(`Parquet lake    ${join(t.dir, 'lake')}`);
    expect(readdirSync(join(t.dir, 'lake')).length).toBeGreaterThan(0);
    expect(printed).toContain(`HTML report     ${join(t.dir, 'reports', 'report.html')}`);
    expect(readFileSync(join(t.dir, 'reports', 'report.html'), 'utf8')).toContain('<svg');
  });

  it('publishes a read-only copy a reader keeps open through the next run: old data until it reconnects', async () => {
    const published = join(t.dir, 'published', 'w.duckdb');
    expect(statSync(published).mode & 0o222).toBe(0);
    const reader = startReader(published);
    try {
      const before = JSON.parse((await reader.ask('')).replace(/^ready /, ''));
      expect(before.runs).toBe(1);
      const second = await runNightly(flags('2026-04-11'), { out: capture().out });
      expect(second.exitCode).toBe(0);
      expect(second.stages.find((s) => s.name === 'publish')?.outcome.status).toBe('succeeded');
      expect(JSON.parse(await reader.ask('again'))).toEqual(before);
      const after = JSON.parse(await reader.ask('reconnect'));
      expect(after.runs).toBe(2);
      expect(after.last > before.last).toBe(true);
    } finally {
      reader.child.kill();
    }
  }, 300_000);

  it('every query the run suggests runs with vwh query', async () => {
    const suggested = [...printed.matchAll(/ query --db \S+ "([^"]+)"$/gm)].map((m) => m[1] as string);
    expect(suggested.length).toBe(3);
    for (const sql of suggested) {
      const { out } = capture();
      await expect(runQuery(sql, { db: t.db, format: 'csv', maxRows: 50 }, out), sql).resolves.toBeGreaterThan(0);
    }
  });

  it('query prints an aligned table, CSV that round-trips quotes, and JSON lines', async () => {
    const sql = `select 1 as n, 'a "quoted", text' as s union all select 22, null order by n`;
    const table = capture();
    expect(await runQuery(sql, { db: t.db, format: 'table', maxRows: 1 }, table.out)).toBe(1);
    expect(table.text().split('\n')).toEqual([
      'n  s',
      '-  ----------------',
      '1  a "quoted", text',
      '(1 row shown, more not read: --max-rows, or --format csv for all)',
      '',
    ]);
    const csv = capture();
    await runQuery(sql, { db: t.db, format: 'csv', maxRows: 1 }, csv.out);
    expect(csv.text()).toBe('n,s\n1,"a ""quoted"", text"\n22,\n');
    const json = capture();
    await runQuery(sql, { db: t.db, format: 'json', maxRows: 1 }, json.out);
    expect(
      json
        .text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { n: 1, s: 'a "quoted", text' },
      { n: 22, s: null },
    ]);
  });

  it('query refuses bad SQL, a missing file and writes, with a usage error that says what to fix', async () => {
    const { out } = capture();
    await expect(runQuery('select nosuch', { db: t.db, format: 'table', maxRows: 5 }, out)).rejects.toThrow(
      /The query failed: .*nosuch/s,
    );
    await expect(
      runQuery('select 1', { db: join(t.dir, 'missing.duckdb'), format: 'table', maxRows: 5 }, out),
    ).rejects.toThrow(/No warehouse at .*missing\.duckdb.*vwh run/);
    const write = runQuery('drop table marts.brand_visibility_daily', { db: t.db, format: 'table', maxRows: 5 }, out);
    await expect(write).rejects.toBeInstanceOf(VwhError);
    await expect(write).rejects.toThrow(/read-only/i);
  });
});
