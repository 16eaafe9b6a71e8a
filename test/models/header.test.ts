import { describe, expect, it } from 'vitest';
import { parseAudit } from '../../src/models/audits/spec.js';
import { fingerprint } from '../../src/models/fingerprint.js';
import { HEADERS, parseModelHeader, splitFile } from '../../src/models/header.js';
import { daysPerBatch, plannedRanges, toRanges } from '../../src/models/intervals.js';
import { loadProject, shippedModelsDir } from '../../src/models/project.js';
import { replaceRelation, splitStatements, sqlPieces, substituteMacros } from '../../src/models/sql-text.js';

describe('model header', () => {
  it('reads the YAML block comment and says where the SQL starts', () => {
    const text = `/* @model
kind: incremental_by_time_range
time_column: day
start: 2026-01-01
tags: daily
audits:
  - not_null: [day]
*/
select 1 as day`;
    const split = splitFile(text, 'model');
    expect(split.sqlLine).toBe(8);
    expect(split.sql.trim()).toBe('select 1 as day');
    const config = parseModelHeader(split.header);
    expect(config).toMatchObject({ kind: 'incremental_by_time_range', timeColumn: 'day', start: '2026-01-01' });
    expect(config.tags).toEqual(['daily']);
    expect(config.audits[0]).toMatchObject({ type: 'not_null', columns: ['day'], severity: 'error' });
  });

  it('a header is parsed once a process: a second load of the project parses none, and each caller has its own copy', async () => {
    await loadProject(shippedModelsDir());
    const before = HEADERS.computed;
    const again = await loadProject(shippedModelsDir());
    expect(HEADERS.computed).toBe(before);
    expect(again.models.get('marts.brand_visibility_trend')?.config.kind).toBe('incremental_by_time_range');

    const text = `/* @model\nkind: table\ncolumns:\n  a: first\n*/\nselect 1 as a`;
    const first = splitFile(text, 'model');
    (first.header.columns as Record<string, string>).a = 'changed by a caller';
    expect(splitFile(text, 'model').header).toEqual({ kind: 'table', columns: { a: 'first' } });
    // a changed text is parsed again; a text that does not parse fails every time
    expect(splitFile(text.replace('first', 'second'), 'model').header).toEqual({
      kind: 'table',
      columns: { a: 'second' },
    });
    const broken = '/* @model\nkind: [table\n*/\nselect 1';
    expect(() => splitFile(broken, 'model')).toThrow(/not valid YAML/);
    expect(() => splitFile(broken, 'model')).toThrow(/not valid YAML/);
  });

  it('a YAML error in the header names the line of the file, not of the header', () => {
    const text = ['', '/* @model', 'kind: table', 'tags: [daily', 'description: x: y', '*/', 'select 1'].join('\n');
    expect(() => splitFile(text, 'model')).toThrow(/not valid YAML \(line [45] of the file\)/);
    const inline = ['/* @model kind: table', 'description: a: b', '*/', 'select 1'].join('\n');
    expect(() => splitFile(inline, 'model')).toThrow(/line 2 of the file/);
  });

  it('a file without a header is a view', () => {
    expect(parseModelHeader(splitFile('select 1', 'model').header).kind).toBe('view');
  });

  it('names the key that is wrong', () => {
    expect(() => parseModelHeader({ kind: 'table', colums: {} })).toThrow(/colums/);
    expect(() => parseModelHeader({ kind: 'incremental_by_time_range' })).toThrow(/needs time_column/);
    expect(() => parseModelHeader({ kind: 'scd2', unique_key: 'id', strategy: 'timestamp' })).toThrow(/updated_at/);
    expect(() => parseModelHeader({ kind: 'export' })).toThrow(/needs path/);
  });

  it('parses each audit form', () => {
    expect(parseAudit({ unique: ['a', 'b'] }, 0)).toMatchObject({
      type: 'unique',
      columns: ['a', 'b'],
      name: 'unique__a__b',
    });
    expect(parseAudit({ expression: 'x > 0' }, 1)).toMatchObject({ sql: 'x > 0', name: 'expression_2' });
    expect(
      parseAudit({ accepted_values: { column: 's', values: ['a'], severity: 'warn', threshold: 2 } }, 0),
    ).toMatchObject({ columns: ['s'], values: ['a'], severity: 'warn', threshold: 2 });
    expect(() => parseAudit({ uniq: ['a'] }, 0)).toThrow(/unknown audit type "uniq"/);
    expect(() => parseAudit({ relationships: { column: 'a' } }, 0)).toThrow(/relationships/);
  });
});

describe('SQL text', () => {
  it('substitutes macros outside string literals and comments', () => {
    const sql = "select '@start_date' as s, d from t where d between @start_date and @END_DATE -- @start_date";
    expect(substituteMacros(sql, { start_date: '2026-01-01', end_date: '2026-01-02' })).toBe(
      "select '@start_date' as s, d from t where d between DATE '2026-01-01' and DATE '2026-01-02' -- @start_date",
    );
  });

  it('rewrites a relation reference, quoted or not, but not a longer name', () => {
    const sql = 'select * from staging.x join "staging"."x" on true join staging.x2 on true join a.staging.x on true';
    expect(replaceRelation(sql, 'staging', 'x', 'cte')).toBe(
      'select * from cte join cte on true join staging.x2 on true join a.staging.x on true',
    );
  });

  it('lexes literals, quoted identifiers and comments once, for macros and statement splits alike', () => {
    const sql = `select 'it''s -- no' as "a'b", @start_date /* ; */ from "x--y"; -- c;\ncreate macro m() as ';';`;
    expect(
      sqlPieces(sql)
        .map((p) => p.text)
        .join(''),
    ).toBe(sql);
    expect(substituteMacros(sql, { start_date: '2026-01-01', end_date: '2026-01-01' })).toContain(
      `"a'b", DATE '2026-01-01' /* ; */`,
    );
    expect(splitStatements(sql)).toEqual([
      `select 'it''s -- no' as "a'b", @start_date  from "x--y"`,
      `create macro m() as ';'`,
    ]);
  });
});

describe('intervals', () => {
  it('plans only missing days, with lookback and batches', () => {
    const done = new Set(['2026-01-01', '2026-01-02', '2026-01-04']);
    expect(plannedRanges('2026-01-01', '2026-01-05', done, 0, 0)).toEqual([
      { from: '2026-01-03', to: '2026-01-03' },
      { from: '2026-01-05', to: '2026-01-05' },
    ]);
    expect(plannedRanges('2026-01-01', '2026-01-05', done, 1, 0)).toEqual([{ from: '2026-01-02', to: '2026-01-05' }]);
    expect(plannedRanges('2026-01-01', '2026-01-05', new Set(), 0, 2)).toEqual([
      { from: '2026-01-01', to: '2026-01-02' },
      { from: '2026-01-03', to: '2026-01-04' },
      { from: '2026-01-05', to: '2026-01-05' },
    ]);
    expect(
      plannedRanges('2026-01-01', '2026-01-05', new Set(toRanges([]).flatMap((r) => [r.from, r.to])), 3, 0),
    ).toEqual([{ from: '2026-01-01', to: '2026-01-05' }]);
  });

  it('grows a batch past batch_days while it holds fewer than batch_rows rows of the inputs', () => {
    // 365 days of 1,000 input rows a day: 100,000 rows a batch is 100 days; at 10,000 a day, batch_days stays.
    expect(daysPerBatch(15, 100_000, 365_000, 365)).toBe(100);
    expect(daysPerBatch(15, 100_000, 3_650_000, 365)).toBe(15);
    // No rows yet: one batch; no batch_rows, no batch_days or nothing planned: batch_days as it is.
    expect(daysPerBatch(15, 100_000, 0, 90)).toBe(90);
    expect(daysPerBatch(15, 0, 10, 90)).toBe(15);
    expect(daysPerBatch(0, 100_000, 10, 90)).toBe(0);
    expect(daysPerBatch(15, 100_000, 10, 0)).toBe(15);
  });

  it('batch_rows is left out of the fingerprint (it changes the transactions, not the rows); batch_days is not', () => {
    const config = (extra: string) =>
      parseModelHeader(
        Object.fromEntries(
          `kind: incremental_by_time_range\ntime_column: day\n${extra}`.split('\n').map((line) => {
            const [key, value] = line.split(': ') as [string, string];
            return [key, /^\d+$/.test(value) ? Number(value) : value];
          }),
        ),
      );
    const sql = 'select day from raw.chats where day between @start_date and @end_date';
    const base = fingerprint(sql, config('batch_days: 15'));
    expect(fingerprint(sql, config('batch_days: 15\nbatch_rows: 100000'))).toBe(base);
    expect(fingerprint(sql, config('batch_days: 31\nbatch_rows: 100000'))).not.toBe(base);
  });
});
