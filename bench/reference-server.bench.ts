/**
 * Reference server throughput, latency and memory on the large world (10 projects × 100 prompts × 365 days of
 * history) against a small world (1 × 10 × 30) measured in the same run, over real HTTP on port 0.
 *
 * The rate limit is lifted with `rateWindowMs: 1` (a 1 ms sliding window never holds 70 requests), so the figures
 * are the server's, not the limiter's. Throughput runs at concurrency 16; latency one request at a time (so a slow
 * project-wide read never queues a per-prompt one). Memory: after the request mix, a full-year sweep of one large
 * project (every prompt's 365-day analytics, the 365-day overview and sources analytics) touches ~110,000 answers;
 * then the live heap (after a forced GC) and the RSS are compared with the text the large world would hold if it
 * were materialized (answers × mean served `full_content` bytes). Generation is lazy, so both stay far below it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request } from 'undici';
import { type ReferenceServer, startReferenceServer } from '../src/reference/index.js';
import type { World } from '../src/reference/world/api.js';
import type { WorldExtras } from '../src/reference/world/index.js';
import { type BenchResult, writeResult } from './lib.js';

interface Scale {
  projects: number;
  prompts: number;
  historyDays: number;
}

interface RunFigures {
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
  /** p50 of the per-prompt reads (chats, analytics, domains) and of the project-wide ones (overview, visibility, sources). */
  promptP50: number;
  projectP50: number;
  bytes: number;
  /** `full_content` bytes of the chats served, and the bytes of the served chat items as JSON. */
  chatBytes: number;
  chatJsonBytes: number;
  chats: number;
}

const LARGE: Scale = { projects: 10, prompts: 100, historyDays: 365 };
const SMALL: Scale = { projects: 1, prompts: 10, historyDays: 30 };
const REQUESTS = 1200;
const CONCURRENCY = 16;
const ROUNDS = 6;
const LATENCY_REQUESTS = 240;

/** A real GC without `--expose-gc` on the command line (`npm run bench` passes no node flags). */
const collect: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** Live heap bytes after two full collections. */
function liveHeap(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function getJson(server: ReferenceServer, path: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const res = await request(server.baseUrl + path, { headers: { 'x-api-key': server.demoApiKey ?? '' } });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  return { ms: performance.now() - t0, text };
}

/** The request mix of a nightly sync: prompt chats and analytics dominate, then project-level reads. */
async function paths(server: ReferenceServer): Promise<(i: number) => string> {
  const projects = JSON.parse((await getJson(server, '/projects')).text).data as Array<{ id: string }>;
  const prompts: Array<[string, string]> = [];
  for (const p of projects) {
    const list = JSON.parse((await getJson(server, `/projects/${p.id}/prompts`)).text).data.prompts as Array<{
      id: string;
    }>;
    for (const q of list) prompts.push([p.id, q.id]);
  }
  return (i) => {
    const [projectId, promptId] = prompts[(i * 7919) % prompts.length] as [string, string];
    const day = `2026-0${1 + (i % 3)}-${String(10 + (i % 18)).padStart(2, '0')}`;
    switch (i % 8) {
      case 0:
      case 1:
      case 2:
        return `/projects/${projectId}/prompts/${promptId}/chats?date_from=${day}&date_to=${day}`;
      case 3:
        return `/projects/${projectId}/prompts/${promptId}/analytics?duration_days=30`;
      case 4:
        return `/projects/${projectId}/prompts/${promptId}/domains?date_from=${day}&date_to=${day}`;
      case 5:
        return `/projects/${projectId}/overview?date_from=${day}&date_to=${day}`;
      case 6:
        return `/projects/${projectId}/visibility?duration_days=7`;
      default:
        return `/projects/${projectId}/sources?date_from=${day}&date_to=${day}&page_size=100`;
    }
  };
}

async function startWorld(scale: Scale): Promise<{ server: ReferenceServer; startMs: number }> {
  const t0 = performance.now();
  const server = await startReferenceServer({
    port: 0,
    seed: 11,
    today: '2026-03-31',
    demo: true,
    projects: scale.projects,
    prompts: scale.prompts,
    historyDays: scale.historyDays,
    rateWindowMs: 1,
  });
  return { server, startMs: performance.now() - t0 };
}

class Tally {
  latencies: number[] = [];
  promptLatencies: number[] = [];
  projectLatencies: number[] = [];
  seconds = 0;
  requests = 0;
  bytes = 0;
  chatBytes = 0;
  chatJsonBytes = 0;
  chats = 0;
  next = 0;

  figures(): RunFigures {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      requests: this.requests,
      seconds: this.seconds,
      p50: quantile(sorted, 0.5),
      p95: quantile(sorted, 0.95),
      promptP50: quantile(
        [...this.promptLatencies].sort((a, b) => a - b),
        0.5,
      ),
      projectP50: quantile(
        [...this.projectLatencies].sort((a, b) => a - b),
        0.5,
      ),
      bytes: this.bytes,
      chatBytes: this.chatBytes,
      chatJsonBytes: this.chatJsonBytes,
      chats: this.chats,
    };
  }
}

/** `count` requests of the mix at CONCURRENCY, added to `tally` (its cursor continues where the last batch ended). */
async function batch(
  server: ReferenceServer,
  pathOf: (i: number) => string,
  tally: Tally,
  count: number,
  mode: 'warmup' | 'latency' | 'throughput',
) {
  const record = mode === 'latency';
  const end = tally.next + count;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: record ? 1 : CONCURRENCY }, async () => {
      while (tally.next < end) {
        const path = pathOf(tally.next++);
        const { ms, text } = await getJson(server, path);
        if (!record) continue;
        tally.latencies.push(ms);
        (path.includes('/prompts/') ? tally.promptLatencies : tally.projectLatencies).push(ms);
        tally.bytes += Buffer.byteLength(text);
        if (path.includes('/chats?')) {
          for (const item of JSON.parse(text).data.items as Array<{ full_content: string }>) {
            tally.chatBytes += Buffer.byteLength(item.full_content);
            tally.chatJsonBytes += Buffer.byteLength(JSON.stringify(item));
            tally.chats += 1;
          }
        }
      }
    }),
  );
  if (mode === 'throughput') {
    tally.seconds += (performance.now() - begin) / 1000;
    tally.requests += count;
  }
}

/** Every prompt of the first project over the whole history, and its project-wide reads: answers touched. */
async function fullYearSweep(server: ReferenceServer): Promise<{ answers: number; ms: number }> {
  const t0 = performance.now();
  const project = (JSON.parse((await getJson(server, '/projects')).text).data as Array<{ id: string }>)[0]?.id;
  const prompts = JSON.parse((await getJson(server, `/projects/${project}/prompts`)).text).data.prompts as Array<{
    id: string;
  }>;
  const range = `duration_days=${LARGE.historyDays}`;
  let answers = 0;
  for (const prompt of prompts) {
    const analytics = JSON.parse(
      (await getJson(server, `/projects/${project}/prompts/${prompt.id}/analytics?${range}`)).text,
    );
    answers += analytics.data.volume ?? 0;
  }
  await getJson(server, `/projects/${project}/overview?${range}`);
  await getJson(server, `/projects/${project}/sources/analytics?${range}`);
  return { answers, ms: performance.now() - t0 };
}

export async function main(): Promise<BenchResult> {
  const small = await startWorld(SMALL);
  const heapBefore = liveHeap();
  const rssBefore = process.memoryUsage().rss;
  const large = await startWorld(LARGE);
  const smallPaths = await paths(small.server);
  const largePaths = await paths(large.server);
  const smallTally = new Tally();
  const largeTally = new Tally();
  // Warm-up (JIT, caches), then the two worlds in alternating rounds, so that the load of the machine weighs on
  // both alike and the ratios hold even on a busy box.
  await batch(small.server, smallPaths, smallTally, 100, 'warmup');
  await batch(large.server, largePaths, largeTally, 100, 'warmup');
  for (let round = 0; round < ROUNDS; round++) {
    await batch(small.server, smallPaths, smallTally, LATENCY_REQUESTS / ROUNDS, 'latency');
    await batch(large.server, largePaths, largeTally, LATENCY_REQUESTS / ROUNDS, 'latency');
    await batch(small.server, smallPaths, smallTally, REQUESTS / ROUNDS, 'throughput');
    await batch(large.server, largePaths, largeTally, REQUESTS / ROUNDS, 'throughput');
  }
  const sweep = await fullYearSweep(large.server);
  const heapAfter = liveHeap();
  const heapGrowth = Math.max(0, heapAfter - heapBefore);
  const rss = process.memoryUsage().rss;
  const growth = Math.max(0, rss - rssBefore);
  const providers = large.server.state.world.providers.length;
  // The server holds the world through its seam; the world it creates also counts what it generated.
  const world = (large.server.state.world as World & Partial<WorldExtras>).stats?.() ?? {
    answersGenerated: Number.NaN,
    textCharsGenerated: Number.NaN,
    cachedAnswers: Number.NaN,
    cacheCapacity: Number.NaN,
  };
  await small.server.close();
  await large.server.close();
  const smallFigures = smallTally.figures();
  const largeFigures = largeTally.figures();

  const answers = LARGE.projects * LARGE.prompts * LARGE.historyDays * providers;
  const perChat = (bytes: number) => (largeFigures.chats === 0 ? 0 : bytes / largeFigures.chats);
  const meanChatBytes = perChat(largeFigures.chatBytes);
  const meanChatJsonBytes = perChat(largeFigures.chatJsonBytes);
  const materializedBytes = answers * meanChatBytes;
  const materializedJsonBytes = answers * meanChatJsonBytes;
  const result: BenchResult = {
    name: 'reference-server',
    description:
      `${REQUESTS} GETs at concurrency ${CONCURRENCY} for throughput and ${LATENCY_REQUESTS} one at a time for latency ` +
      `(chats 3/8, analytics, domains, overview, visibility, sources) ` +
      `on the large world (${LARGE.projects} projects × ${LARGE.prompts} prompts × ${LARGE.historyDays} days × ${providers} providers) ` +
      `and on a small world (${SMALL.projects} × ${SMALL.prompts} × ${SMALL.historyDays}) in the same process, after a warm-up, ` +
      `in ${ROUNDS} alternating rounds; rate limit lifted ` +
      `(rateWindowMs 1). Then a full-year sweep of one large project; live heap (after GC) and RSS vs the answer text ` +
      `the large world would hold if materialized (answers × mean served full_content bytes). ` +
      `${process.platform}-${process.arch}, node ${process.version}.`,
    ratios: {
      large_vs_small_p50_latency: largeFigures.p50 / smallFigures.p50,
      large_vs_small_p95_latency: largeFigures.p95 / smallFigures.p95,
      large_vs_small_prompt_reads_p50: largeFigures.promptP50 / smallFigures.promptP50,
      large_vs_small_project_reads_p50: largeFigures.projectP50 / smallFigures.projectP50,
      large_vs_small_throughput:
        largeFigures.requests / largeFigures.seconds / (smallFigures.requests / smallFigures.seconds),
      rss_vs_materialized_answer_text: rss / materializedBytes,
      rss_vs_materialized_chat_items: rss / materializedJsonBytes,
      rss_growth_vs_materialized_chat_items: growth / materializedJsonBytes,
      rss_growth_vs_materialized_answer_text: growth / materializedBytes,
      rss_vs_bytes_served: rss / largeFigures.bytes,
      live_heap_growth_vs_materialized_answer_text: heapGrowth / materializedBytes,
      live_heap_growth_vs_swept_answer_text: heapGrowth / (sweep.answers * meanChatBytes),
      large_world_cached_answers_vs_answers_in_history: world.cachedAnswers / answers,
    },
    figures: {
      large_requests_per_second: largeFigures.requests / largeFigures.seconds,
      large_p50_ms: largeFigures.p50,
      large_p95_ms: largeFigures.p95,
      small_requests_per_second: smallFigures.requests / smallFigures.seconds,
      small_p50_ms: smallFigures.p50,
      small_p95_ms: smallFigures.p95,
      large_prompt_reads_p50_ms: largeFigures.promptP50,
      small_prompt_reads_p50_ms: smallFigures.promptP50,
      large_project_reads_p50_ms: largeFigures.projectP50,
      small_project_reads_p50_ms: smallFigures.projectP50,
      large_start_ms: large.startMs,
      small_start_ms: small.startMs,
      large_bytes_served: largeFigures.bytes,
      large_answers_in_history: answers,
      mean_answer_text_bytes: meanChatBytes,
      mean_chat_item_json_bytes: meanChatJsonBytes,
      materialized_answer_text_bytes: materializedBytes,
      materialized_chat_items_bytes: materializedJsonBytes,
      rss_bytes: rss,
      rss_before_large_bytes: rssBefore,
      rss_growth_large_bytes: growth,
      live_heap_before_large_bytes: heapBefore,
      live_heap_after_bytes: heapAfter,
      live_heap_growth_large_bytes: heapGrowth,
      full_year_sweep_answers: sweep.answers,
      full_year_sweep_ms: sweep.ms,
      large_world_answers_generated: world.answersGenerated,
      large_world_text_chars_generated: world.textCharsGenerated,
      large_world_cached_answers: world.cachedAnswers,
      large_world_cache_capacity: world.cacheCapacity,
    },
    targets: {
      lazy_generation: {
        target: 'live heap growth of the large world (after a full-year sweep) < 10% of its answer text materialized',
        met: heapGrowth < 0.1 * materializedBytes,
      },
      rss_growth_below_text: {
        target:
          'resident memory the large world adds (RSS after its traffic minus RSS before it was created) < 50% of its ' +
          'answer text materialized (the process baseline, Node and the small world, is not the large world)',
        met: growth < 0.5 * materializedBytes,
      },
      prompt_reads_flat_in_world_size: {
        target: 'per-prompt reads: large/small p50 latency < 2 (project-wide reads scale with prompts per project)',
        met: largeFigures.promptP50 / smallFigures.promptP50 < 2,
      },
    },
  };
  writeResult(result);
  return result;
}
