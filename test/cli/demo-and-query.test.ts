/**
 * The README's first command: `vwh demo` (reference services, sync, models build, summary) on a small world, and
 * `vwh query`, which runs the queries the demo prints. Real HTTP on port 0, a real DuckDB file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/commands/demo.js';
import { runQuery } from '../../src/cli/commands/query.js';
import { VwhError } from '../../src/core/errors.js';
import { Database } from '../../src/warehouse/duckdb.js';

function capture(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk) => {
    text += chunk;
  });
  return { out, text: () => text };
}

describe('vwh demo, then vwh query', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-demo-'));
  const db = join(dir, 'w.duckdb');
  let code = -1;
  let printed = '';

  beforeAll(async () => {
    const { out, text } = capture();
    code = await runDemo(
      { db, seed: 5, historyDays: 10, projects: 1, prompts: 3, rateWindowMs: 200, logFormat: 'json' },
      out,
    );
    printed = text();
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('syncs and builds every model without a failure, and prints the exact row count of each mart', async () => {
    expect(code).toBe(0);
    expect(printed).toMatch(/models: \d+ success/);
    expect(printed).not.toMatch(/\b(FAIL|ERROR|SKIPPED)\b/);
    const marts = [...printed.matchAll(/^ {2}marts\.(\w+)\s+(\d+) rows$/gm)];
    expect(marts.map((m) => m[1])).toEqual(
      expect.arrayContaining(['brand_visibility_daily', 'share_of_voice_daily', 'action_impact', 'api_reconciliation']),
    );
    const warehouse = await Database.open(db, { access_mode: 'READ_ONLY' });
    try {
      for (const [, name, count] of marts) {
        expect(Number(await warehouse.scalar(`select count(*) from marts.${name}`)), name).toBe(Number(count));
      }
      expect(Number(await warehouse.scalar('select count(*) from marts.brand_visibility_daily'))).toBeGreaterThan(0);
      // the demo syncs as the demo user, so even the team service's members land
      expect(await warehouse.all('select email from raw.team_members')).toEqual([{ email: 'demo@example.com' }]);
    } finally {
      warehouse.close();
    }
  });

  it('every query the demo suggests runs with vwh query', async () => {
    const suggested = [...printed.matchAll(/ query --db \S+ "([^"]+)"$/gm)].map((m) => m[1] as string);
    expect(suggested.length).toBeGreaterThan(5);
    for (const sql of suggested) {
      const { out } = capture();
      await expect(runQuery(sql, { db, format: 'csv', maxRows: 50 }, out), sql).resolves.toBeGreaterThanOrEqual(0);
    }
  });

  it('query prints an aligned table, CSV that round-trips quotes, and JSON lines', async () => {
    const sql = `select 1 as n, 'a "quoted", text' as s union all select 22, null order by n`;
    const table = capture();
    expect(await runQuery(sql, { db, format: 'table', maxRows: 1 }, table.out)).toBe(2);
    expect(table.text().split('\n')).toEqual([
      'n  s',
      '-  ----------------',
      '1  a "quoted", text',
      '(2 rows, 1 not shown: --max-rows or --format csv)',
      '',
    ]);
    const csv = capture();
    await runQuery(sql, { db, format: 'csv', maxRows: 1 }, csv.out);
    expect(csv.text()).toBe('n,s\n1,"a ""quoted"", text"\n22,\n');
    const json = capture();
    await runQuery(sql, { db, format: 'json', maxRows: 1 }, json.out);
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
    await expect(runQuery('select nosuch', { db, format: 'table', maxRows: 5 }, out)).rejects.toThrow(
      /The query failed: .*nosuch/s,
    );
    await expect(
      runQuery('select 1', { db: join(dir, 'missing.duckdb'), format: 'table', maxRows: 5 }, out),
    ).rejects.toThrow(/No warehouse at .*missing\.duckdb.*vwh demo/);
    const write = runQuery('drop table marts.brand_visibility_daily', { db, format: 'table', maxRows: 5 }, out);
    await expect(write).rejects.toBeInstanceOf(VwhError);
    await expect(write).rejects.toThrow(/read-only/i);
  });
});
