import { describe, expect, it } from 'vitest';
import { groupBy } from '../../src/core/group.js';

describe('groupBy', () => {
  it('groups by key in first-seen order, each group in the items order, with the values asked for', () => {
    const rows = [
      { t: 'b', c: 1 },
      { t: 'a', c: 2 },
      { t: 'b', c: 3 },
    ];
    expect([...groupBy(rows, (r) => r.t)]).toEqual([
      ['b', [rows[0], rows[2]]],
      ['a', [rows[1]]],
    ]);
    expect([
      ...groupBy(
        rows,
        (r) => r.t,
        (r) => r.c,
      ),
    ]).toEqual([
      ['b', [1, 3]],
      ['a', [2]],
    ]);
    expect(groupBy([], (r: { t: string }) => r.t).size).toBe(0);
  });
});
