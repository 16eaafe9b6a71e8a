import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { silentLogger } from '../src/core/log.js';
import { silentProgress } from '../src/sync/progress.js';
import { syncTeam } from '../src/sync/team-sync.js';
import { Warehouse } from '../src/warehouse/warehouse.js';
import { type BenchResult, startServeChild, timed, writeResult } from './lib.js';

const TODAY = '2026-03-15';
const PROMPTS = Number(process.env.VWH_BENCH_SYNC_PROMPTS ?? 6);

/**
 * The reference server runs in a child process (`vwh serve`), so the heap measured here is the sync's alone: the
 * server's answer cache grows with the history it serves and would otherwise be counted as the sync's.
 */
function startServer(historyDays: number): ReturnType<typeof startServeChild> {
  return startServeChild([
    '--seed',
    '11',
    '--today',
    TODAY,
    '--demo',
    '--projects',
    '1',
    '--prompts',
    String(PROMPTS),
    '--history-days',
    String(historyDays),
    '--rate-window-ms',
    '50',
  ]);
}

/** A full GC, so "live heap after a unit" counts what the sync keeps, not garbage not yet collected. */
const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

interface Backfill {
  historyDays: number;
  ms: number;
  requests: number;
  rows: number;
  landedMb: number;
  peakHeapMb: number;
  /** Heap after a full GC, sampled every 5 units: what the sync retains. */
  peakLiveHeapMb: number;
  peakRssMb: number;
}

async function backfill(historyDays: number): Promise<Backfill> {
  const server = await startServer(historyDays);
  const dir = mkdtempSync(join(tmpdir(), 'vwh-bench-'));
  const wh = await Warehouse.open(join(dir, 'w.duckdb'));
  gc();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakLive = base.heapUsed;
  let peakRss = base.rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 10);
  try {
    const run = await timed(() =>
      syncTeam({
        warehouse: wh,
        teamId: 'bench',
        baseUrl: server.url,
        apiKey: server.apiKey,
        settings: {
          today: TODAY,
          lookbackDays: 3,
          chunkDays: 7,
          windowDays: 30,
          topDomains: 0,
          maxSourcePages: 1,
          rotationDays: 1,
          since: undefined,
        },
        streams: ['prompts', 'chats', 'prompt_metrics_daily', 'visibility_daily'],
        concurrency: 4,
        rate: { windowMs: 50 },
        logger: silentLogger,
        progress: silentProgress,
        // After every 5th committed unit: what is still reachable (the sync's own state, the server's world).
        hooks: {
          afterUnit: (n) => {
            if (n % 5 !== 0) return;
            gc();
            peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
          },
        },
      }),
    );
    clearInterval(sampler);
    const ws = await wh.session();
    const [size] = await ws.session.all<{ rows: number; bytes: number }>(
      'SELECT (SELECT count(*) FROM raw.chats) + (SELECT count(*) FROM raw.chat_mentions) + (SELECT count(*) FROM raw.chat_references) AS rows, ' +
        '(SELECT sum(strlen(full_content) + strlen(chat_preview)) FROM raw.chats) AS bytes',
    );
    ws.close();
    return {
      historyDays,
      ms: Math.round(run.ms),
      requests: run.value.counters.requests,
      rows: size?.rows ?? 0,
      landedMb: round((size?.bytes ?? 0) / 1e6),
      peakHeapMb: round((peakHeap - base.heapUsed) / 1e6),
      peakLiveHeapMb: round((peakLive - base.heapUsed) / 1e6),
      peakRssMb: round(peakRss / 1e6),
    };
  } finally {
    clearInterval(sampler);
    wh.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export async function main(): Promise<BenchResult> {
  const small = await backfill(30);
  const large = await backfill(180);
  const dataGrowth = large.rows / Math.max(1, small.rows);
  const heapGrowth = Math.max(0.1, large.peakHeapMb) / Math.max(0.1, small.peakHeapMb);
  const liveGrowth = Math.max(0.1, large.peakLiveHeapMb) / Math.max(0.1, small.peakLiveHeapMb);
  const result: BenchResult = {
    name: 'sync',
    description:
      `Backfill of 1 project × ${PROMPTS} prompts (chats with mentions and references, metrics, visibility) from an ` +
      'reference server in a child process (vwh serve), 30 vs 180 days of history, 7-day units. Live heap: heap after ' +
      'a full GC every 5 committed units, above the starting heap (what the sync retains). Peak heap: sampled every ' +
      `10 ms without GC (garbage included, so it varies with the GC's timing). ${cpus().length} cores.`,
    ratios: {
      data_growth: round(dataGrowth),
      live_heap_growth: round(liveGrowth),
      live_heap_growth_per_data_growth: Math.round((liveGrowth / dataGrowth) * 100) / 100,
      peak_heap_growth: round(heapGrowth),
    },
    figures: Object.fromEntries(
      [small, large].flatMap((b) => Object.entries(b).map(([k, v]) => [`d${b.historyDays}_${k}`, v])),
    ),
    targets: {
      bounded_memory: {
        target: 'live heap grows < half as fast as the data landed',
        met: liveGrowth / dataGrowth < 0.5,
      },
    },
  };
  writeResult(result);
  return result;
}
