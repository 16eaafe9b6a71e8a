import { getEventListeners } from 'node:events';
import { truncateSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { LogProgress, type ProgressSink } from '../../src/sync/progress.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { contentOf, openWarehouse, runSync, startWorld, tempDir } from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startWorld({ seed: 23, projects: 1, prompts: 5, historyDays: 12 });
  tmp = tempDir();
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('bounded resources', () => {
  it('DuckDB runs within the configured memory limit and threads; the defaults suit a cron box', async () => {
    const sized = await Warehouse.open(`${tmp.dir}/sized.duckdb`, { memoryLimit: '300MB', threads: 1 });
    const ws = await sized.session();
    const [set] = await ws.session.all<{ m: string; t: number }>(
      "SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t",
    );
    ws.close();
    sized.close();
    // DuckDB reports the limit in its own unit (MiB), so 300 MB reads 286.1 MiB.
    expect(set?.m).toMatch(/^28\d\.\d MiB$/);
    expect(Number(set?.t)).toBe(1);
    const plain = await Warehouse.open(`${tmp.dir}/plain.duckdb`);
    const ws2 = await plain.session();
    const [def] = await ws2.session.all<{ m: string; t: number }>(
      "SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t",
    );
    ws2.close();
    plain.close();
    // 256 MB reads 244.1 MiB.
    expect(def?.m).toMatch(/^24\d\.\d MiB$/);
    expect(Number(def?.t)).toBe(1);
  });

  it('a big warehouse file gets a sixteenth of its size as its default memory limit, an explicit one still wins', async () => {
    const path = `${tmp.dir}/big.duckdb`;
    (await Warehouse.open(path)).close();
    // 6.4 GB, sparse: DuckDB reads its blocks and ignores the space after them.
    truncateSync(path, 6_400_000_000);
    const limit = async (resources?: Parameters<typeof Warehouse.open>[1]) => {
      const wh = await Warehouse.open(path, resources);
      try {
        return await wh.database.session.scalar<string>("SELECT current_setting('memory_limit')");
      } finally {
        wh.close();
      }
    };
    // 400 MB reads 381.4 MiB (256 MB would read 244.1 MiB).
    expect(await limit()).toMatch(/^38\d\.\d MiB$/);
    expect(await limit({ memoryLimit: '300MB' })).toMatch(/^28\d\.\d MiB$/);
  });

  it('JSON progress lines come on a heartbeat; the caller signal holds one listener, none after, no warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const lines: string[] = [];
    const stream = { write: (t: string) => lines.push(t) } as unknown as NodeJS.WritableStream;
    const logger = createLogger({ format: 'json', level: 'info', stream });
    const controller = new AbortController();
    let peak = 0;
    const log = new LogProgress(logger);
    const progress: ProgressSink = {
      plan: (p) => log.plan(p),
      wait: (t, e) => log.wait(t, e),
      done: (t, s) => log.done(t, s),
      status: (p) => log.status(p),
      unit: (p) => {
        peak = Math.max(peak, getEventListeners(controller.signal, 'abort').length);
        log.unit(p);
      },
    };
    const wh = await openWarehouse(`${tmp.dir}/heartbeat.duckdb`);
    try {
      const result = await runSync(server, wh, {
        signal: controller.signal,
        concurrency: 8,
        heartbeatMs: 40,
        progress,
        logger,
      });
      expect(result.status).toBe('succeeded');
    } finally {
      wh.close();
      process.off('warning', onWarning);
    }
    expect(peak).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    const beats = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'sync progress');
    expect(beats.length).toBeGreaterThan(1);
    const last = beats.at(-1);
    expect(last).toMatchObject({ level: 'info', teamId: 'team-demo' });
    for (const field of ['unitsDone', 'unitsTotal', 'requests', 'rows', 'budgetLeft', 'etaMs'])
      expect(typeof last[field]).toBe('number');
    expect(last.unitsDone).toBeLessThanOrEqual(last.unitsTotal);
    expect(beats.some((b) => b.rows > 0)).toBe(true);
  });

  it('a sync at concurrency 8 with batched landing lands the same rows as one at concurrency 1', async () => {
    const one = await openWarehouse(`${tmp.dir}/one.duckdb`);
    const eight = await openWarehouse(`${tmp.dir}/eight.duckdb`);
    try {
      expect((await runSync(server, one, { concurrency: 1 })).status).toBe('succeeded');
      expect((await runSync(server, eight, { concurrency: 8 })).status).toBe('succeeded');
      expect(await contentOf(eight)).toEqual(await contentOf(one));
    } finally {
      one.close();
      eight.close();
    }
  });

  it('an oversized response fails its unit with the size and the fix; the sync goes on and the next one completes', async () => {
    const capped = await openWarehouse(`${tmp.dir}/capped.duckdb`);
    const clean = await openWarehouse(`${tmp.dir}/uncapped.duckdb`);
    try {
      const first = await runSync(server, capped, { maxResponseBytes: 16_384 });
      expect(first.status).toBe('failed');
      const chatsFailed = first.failedUnits.filter((f) => f.unit.startsWith('chats:'));
      expect(chatsFailed.length).toBeGreaterThan(0);
      expect(chatsFailed[0]?.error).toMatch(/above the cap of 16384 bytes \(maxResponseBytes\).*--max-response-bytes/);
      // Everything small enough landed: the other streams went on.
      const landed = await contentOf(capped);
      expect(landed.projects?.length).toBe(1);
      expect(landed.prompt_metrics_daily?.length).toBeGreaterThan(0);
      expect(landed.chats?.length ?? 0).toBeLessThan(first.counters.unitsPlanned * 100);
      // Nothing landed is lost; the next sync fetches the failed units and ends like an uncapped one.
      const second = await runSync(server, capped);
      expect(second.status).toBe('succeeded');
      expect((await runSync(server, clean)).status).toBe('succeeded');
      expect(await contentOf(capped)).toEqual(await contentOf(clean));
    } finally {
      capped.close();
      clean.close();
    }
  });
});
