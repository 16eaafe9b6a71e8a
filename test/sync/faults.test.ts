import { describe, expect, it } from 'vitest';
import { contentOf, openWarehouse, query, runSync, startWorld, tempDir } from './harness.js';

describe('faults', () => {
  it('5xx, spurious 429s, connection resets and truncated bodies leave the result unchanged', async () => {
    const clean = await startWorld();
    const faulty = await startWorld({ faults: '5xx=0.06,429=0.03:1,reset=0.03,truncate=0.03' });
    const tmp = tempDir();
    try {
      const whClean = await openWarehouse(`${tmp.dir}/clean.duckdb`);
      expect((await runSync(clean, whClean)).status).toBe('succeeded');
      const expected = await contentOf(whClean);
      whClean.close();

      const whFaulty = await openWarehouse(`${tmp.dir}/faulty.duckdb`);
      const result = await runSync(faulty, whFaulty, { retries: 8 });
      expect(result.status).toBe('succeeded');
      expect(result.counters.retries + result.counters.throttled429).toBeGreaterThan(0);
      expect(await contentOf(whFaulty)).toEqual(expected);
      const runs = await query<{ retries: number; throttled_429: number; requests: number }>(
        whFaulty,
        'SELECT retries, throttled_429, requests FROM ops.sync_runs',
      );
      expect(runs).toEqual([
        {
          retries: result.counters.retries,
          throttled_429: result.counters.throttled429,
          requests: result.counters.requests,
        },
      ]);
      whFaulty.close();
    } finally {
      await clean.close();
      await faulty.close();
      tmp.cleanup();
    }
  });
});
