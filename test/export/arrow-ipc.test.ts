/**
 * Arrow IPC files (Feather v2) read back with apache-arrow: row counts across several record batches, the schema's
 * Arrow types, and sampled values against DuckDB's own.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportArrow } from '../../src/export/index.js';
import { tempDir } from '../fixtures.js';
import { runOn } from './support.js';

const dir = tempDir('vwh-export-arrow-').dir;
const db = join(dir, 'w.duckdb');
/** Small batches, so that a small table spans several of them. */
const BATCH_ROWS = 1000;
const ROWS = 2 * BATCH_ROWS + 123;

beforeAll(async () => {
  await runOn(
    db,
    `
      create schema marts;
      create table marts.facts as
        select 'team-a' as team_id, i as n, (i % 7)::integer as small, i / 4 as ratio,
               (i / 3)::decimal(18, 3) as dec, date '2026-01-01' + (i % 90)::int as date,
               timestamp '2026-01-01 00:00:00.000001' + to_microseconds(i) as ts,
               case when i % 5 = 0 then null else 'brand ' || (i % 11) end as brand,
               i % 2 = 0 as flag, ['a', 'b'] as tags, uuid '00000000-0000-0000-0000-000000000001' as id
          from range(${ROWS}) r(i);
      create table marts.empty (project_id varchar, date date);`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('arrow export', () => {
  it('streams each mart into an IPC file that apache-arrow reads back: rows, schema, values', async () => {
    const out = join(dir, 'arrow');
    const summary = await exportArrow({ db, outDir: out, batchRows: BATCH_ROWS });
    expect(readdirSync(out).sort()).toEqual(['marts.empty.arrow', 'marts.facts.arrow']);
    expect(summary).toMatchObject({ kind: 'arrow', files: 2, rows: ROWS });
    const table = tableFromIPC(readFileSync(join(out, 'marts.facts.arrow')));
    expect(table.numRows).toBe(ROWS);
    expect(table.batches.length).toBe(3);
    expect(Object.fromEntries(table.schema.fields.map((f) => [f.name, String(f.type)]))).toEqual({
      team_id: 'Utf8',
      n: 'Int64',
      small: 'Int32',
      ratio: 'Float64',
      dec: 'Float64',
      date: 'Date32<DAY>',
      ts: 'Timestamp<MICROSECOND, UTC>',
      brand: 'Utf8',
      flag: 'Bool',
      tags: 'List<Utf8>',
      id: 'Utf8',
    });
    for (const i of [0, 5, BATCH_ROWS, ROWS - 1]) {
      const row = table.get(i)?.toJSON() as Record<string, unknown>;
      expect(row.n).toBe(BigInt(i));
      expect(row.small).toBe(i % 7);
      expect(row.dec).toBeCloseTo(Math.round((i / 3) * 1000) / 1000, 6);
      expect(row.brand).toBe(i % 5 === 0 ? null : `brand ${i % 11}`);
      expect(row.flag).toBe(i % 2 === 0);
      expect(row.id).toBe('00000000-0000-0000-0000-000000000001');
    }
    const ts = table.getChild('ts');
    const micros = (i: number) => {
      const batch = Math.floor(i / BATCH_ROWS);
      const values = ts?.data[batch]?.values as BigInt64Array | undefined;
      return values?.[i - batch * BATCH_ROWS];
    };
    // microseconds kept exactly: 2026-01-01T00:00:00.000001Z plus i µs
    const base = BigInt(Date.UTC(2026, 0, 1)) * 1000n + 1n;
    expect(micros(0)).toBe(base);
    expect(micros(ROWS - 1)).toBe(base + BigInt(ROWS - 1));
    expect(table.getChild('date')?.get(3)).toBe(Date.UTC(2026, 0, 4));
    expect(table.getChild('tags')?.get(0)?.toArray()).toEqual(['a', 'b']);

    const empty = tableFromIPC(readFileSync(join(out, 'marts.empty.arrow')));
    expect(empty.numRows).toBe(0);
    expect(empty.schema.fields.map((f) => f.name)).toEqual(['project_id', 'date']);
  });

  it('only the tables asked for; an unknown table is a USAGE error and writes nothing', async () => {
    const out = join(dir, 'arrow-some');
    await exportArrow({ db, outDir: out, tables: ['marts.empty'] });
    expect(readdirSync(out)).toEqual(['marts.empty.arrow']);
    await expect(exportArrow({ db, outDir: join(dir, 'none'), tables: ['../x'] })).rejects.toMatchObject({
      exitCode: 64,
    });
    expect(readdirSync(join(dir, 'none'))).toEqual([]);
  });
});
