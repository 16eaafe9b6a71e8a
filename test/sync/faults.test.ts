import { describe, expect, it } from 'vitest';
import { control } from '../../src/reference/index.js';
import { contentOf, openWarehouse, query, runSync, startWorld, tempDir } from './support.js';

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

describe('a Retry-After beyond the ceiling', () => {
  it('fails only its units, naming the header, the sync goes on, and the next run fetches them', async () => {
    const server = await startWorld({ projects: 1, prompts: 3, historyDays: 4 });
    const tmp = tempDir();
    try {
      const wh = await openWarehouse(`${tmp.dir}/w.duckdb`);
      control.setFaults(server.state, '429=1:3600@/projects/*/prompts/*/chats');
      const first = await runSync(server, wh, { streams: ['prompts', 'chats', 'competitors'] });
      expect(first.status).toBe('failed');
      expect(first.failedUnits.length).toBeGreaterThan(0);
      expect(first.failedUnits.every((f) => f.unit.startsWith('chats'))).toBe(true);
      expect(first.failedUnits[0]?.error).toMatch(/Retry-After: 3600 \(1 h\), longer than the 300 s/);
      expect(first.counters.rowsPerStream.prompts).toBeGreaterThan(0);
      expect(first.counters.rowsPerStream.competitors).toBeGreaterThan(0);
      expect(await query(wh, 'SELECT count(*) AS n FROM raw.chats')).toEqual([{ n: 0 }]);

      control.setFaults(server.state, null);
      const second = await runSync(server, wh, { streams: ['prompts', 'chats', 'competitors'] });
      expect(second.status).toBe('succeeded');
      expect(second.counters.rowsPerStream.chats).toBeGreaterThan(0);
      wh.close();
    } finally {
      await server.close();
      tmp.cleanup();
    }
  });
});
