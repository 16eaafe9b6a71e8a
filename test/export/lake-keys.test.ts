/**
 * The write's ENUM partition keys (lake/keys.ts) give every row the folder text its VARCHAR key gives: the month
 * through the list of months and through the cast, for ordinary, far, null and infinite days.
 */
import { describe, expect, it } from 'vitest';
import { enumKeys, type PartitionKey } from '../../src/export/lake/keys.js';
import { Database } from '../../src/warehouse/duckdb.js';

const text = (expr: string) => `coalesce(CAST(${expr} AS VARCHAR), '__HIVE_DEFAULT_PARTITION__')`;
const month: PartitionKey = { name: 'month', expr: text(`strftime(d, '%Y-%m')`), date: 'd' };
const project: PartitionKey = { name: 'project_id', expr: text('p') };

async function sameAsText(days: string, keys: PartitionKey[]): Promise<{ rows: number; differ: number }> {
  const db = await Database.open(':memory:');
  try {
    await db.session.run(`create table t as select d, 'p' || (i % 3) as p from (${days}) v(i, d)`);
    const values = await db.session.all<Record<string, string>>(
      `select distinct ${keys.map((k) => `${k.expr} as ${k.name}`).join(', ')} from t`,
    );
    const typed = enumKeys(
      keys,
      values.map((v) => keys.map((k) => v[k.name] as string)),
    );
    const result = await db.session.one<{ rows: number; differ: number }>(
      `select count(*)::int as rows,
              count(*) filter (where ${keys.map((k, i) => `CAST(e${i} AS VARCHAR) is distinct from ${k.expr}`).join(' or ')})::int as differ
         from (select *, ${typed.map((t, i) => t.replace(/ AS "[^"]+"$/, ` AS e${i}`)).join(', ')} from t)`,
    );
    if (!result) throw new Error('no result row');
    return result;
  } finally {
    db.close();
  }
}

describe('lake ENUM partition keys', () => {
  it('give each row the month and project text of its VARCHAR keys', async () => {
    const days = `select i, case i % 50 when 0 then NULL when 1 then date 'infinity'
                          else date '2024-01-31' + (i * 7)::int end
                    from range(400) r(i)`;
    expect(await sameAsText(days, [project, month])).toEqual({ rows: 400, differ: 0 });
  });

  it('keep far years and a month range too wide for the list right (through the cast)', async () => {
    const days = `select * from (values (0, date '0001-01-01'), (1, date '0001-12-31'), (2, date '10000-02-29'),
                                       (3, date '2026-11-24'), (4, NULL::DATE)) v(i, d)`;
    const keys = [project, month];
    expect(await sameAsText(days, keys)).toEqual({ rows: 5, differ: 0 });
    expect(
      enumKeys(keys, [
        ['p1', '0001-01'],
        ['p2', '2026-11'],
      ])[1],
    ).not.toContain('[');
    expect(
      enumKeys(keys, [
        ['p1', '2026-01'],
        ['p2', '2026-11'],
      ])[1],
    ).toContain('[');
  });
});
