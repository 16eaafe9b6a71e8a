import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { dayOf, extraOf, fieldsOf } from '../../src/sync/rows.js';

describe('row helpers', () => {
  it("gives a timestamp's UTC day as Date.parse reads it: offsets, rolled-over days, fractions, bare days", () => {
    const stamps = [
      '2026-01-02T03:04:05Z',
      '2026-01-02T23:59:59.999999Z',
      '2026-01-02T00:00Z',
      '2026-12-31T23:00:00-02:00',
      '2026-01-01T01:00:00+02:00',
      '2025-02-28T10:00:00Z',
      '2025-02-29T10:00:00Z',
      '2025-02-30T10:00:00Z',
      '2025-04-31T10:00:00Z',
      '2024-02-29T10:00:00Z',
      '2026-01-31T23:59:59Z',
      '2026-01-02t03:04:05z',
      '0000-01-01T00:00:00Z',
    ];
    for (const s of stamps) expect(dayOf(s), s).toBe(new Date(Date.parse(s)).toISOString().slice(0, 10));
    expect(dayOf('2025-02-30T10:00:00Z')).toBe('2025-03-02');
    expect(dayOf('2026-01-05')).toBe('2026-01-05');
    expect(dayOf('not a day')).toBe('not a day');
  });

  it("gives an item's fields its schema does not name, from the schema's fields or their set", () => {
    const item = { a: 1, b: 2, c: { d: 3 } };
    expect(extraOf(item, fieldsOf(['a']))).toEqual({ b: 2, c: { d: 3 } });
    expect(extraOf(item, fieldsOf(['a', 'c']))).toEqual({ b: 2 });
    expect(extraOf(item, fieldsOf(['a', 'b', 'c']))).toBeNull();
    expect(extraOf(item, z.object({ a: z.number(), b: z.number() }))).toEqual({ c: { d: 3 } });
    // A list written at the call is a new object for every item, so its set would be built (and cached) per item:
    // the type refuses it (the build checks this line), a set made once with fieldsOf is what a caller passes.
    // @ts-expect-error a field list, not a field set
    expect(extraOf(item, ['a'])).toEqual({ b: 2, c: { d: 3 } });
    const schema = z.object({ a: z.number() });
    expect(fieldsOf(schema)).toBe(fieldsOf(schema));
  });
});
