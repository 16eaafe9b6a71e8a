/**
 * One sync of the sync-scale bench, in-process (`syncRun`) or as a process of its own (`runInChild`): a backfill or a
 * night is a `vwh sync` process on its own in real use, so its peak RSS is measured as such (the kernel's VmHWM of
 * the child: exact, not sampled, and not inflated by the bench's earlier runs in the same process).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Transport } from '../src/client/transport.js';
import { UndiciTransport } from '../src/client/undici-transport.js';
import { silentLogger } from '../src/core/log.js';
import { syncAll, type TeamJob } from '../src/sync/all-teams.js';
import { silentProgress } from '../src/sync/progress.js';
import type { SyncSettings, TeamResult } from '../src/sync/types.js';
import { Warehouse } from '../src/warehouse/warehouse.js';
import { processCpuMs, threadCpuMs, timed } from './lib.js';
import { type Floor, measureFloor, RecordingTransport } from './sync-floor.js';

export const CONCURRENCY = Number(process.env.VWH_BENCH_SCALE_CONCURRENCY ?? 8);
/** The streams a night needs for the answers and everything derived or rotated; the source detail streams aside. */
export const STREAMS = [
  'projects',
  'prompts',
  'prompt_metrics_daily',
  'chats',
  'prompt_domains',
  'prompt_urls',
  'competitors',
  'visibility_daily',
  'overview',
  'sources',
  'source_analytics',
  'actions',
  'recorded_urls',
];

/** What `syncRun` needs of a reference server: its CPU so far. */
export interface ServerCpu {
  cpuMs(): number | undefined;
}

/** The bench syncs' lookback: a night re-lands its day and the `LOOKBACK_DAYS - 1` days before it. */
export const LOOKBACK_DAYS = 3;

function settings(today: string): SyncSettings {
  return {
    today,
    lookbackDays: LOOKBACK_DAYS,
    chunkDays: 31,
    windowDays: 30,
    topDomains: 0,
    maxSourcePages: 1,
    rotationDays: 7,
  };
}

export interface Run {
  wallMs: number;
  floorMs: number;
  requests: number;
  planned: number;
  throttled429: number;
  rows: number;
  peakRssMb: number;
  /** Peak of the JavaScript heap in use (garbage included) within that RSS; the rest is mostly DuckDB's. */
  peakHeapMb: number;
  /** CPU of the sync process and of the reference server(s) during the run. */
  syncCpuMs: number;
  /** The sync process's CPU in the run by thread name (see `threadCpuMs`; threads that ended are missing). */
  syncCpuByThread: Record<string, number>;
  serverCpuMs: number;
  perActivePrompt: number;
  promptRequests: number;
  otherRequests: number;
  teams: TeamResult[];
  /** The floor of the same bodies and rows (bench/sync-floor.ts), when asked for. */
  floor?: Floor;
}

export async function syncRun(
  wh: Warehouse,
  jobs: TeamJob[],
  today: string,
  windowMs: number,
  servers: readonly ServerCpu[],
  transport?: Transport,
): Promise<Run> {
  const serverCpu = () => servers.reduce((n, s) => n + (s.cpuMs() ?? 0), 0);
  const serverCpuBefore = serverCpu();
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpuMs();
  let peakRss = process.memoryUsage().rss;
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    peakHeap = Math.max(peakHeap, memory.heapUsed);
  }, 250);
  try {
    const run = await timed(() =>
      syncAll(
        wh,
        jobs,
        {
          settings: settings(today),
          streams: STREAMS,
          concurrency: CONCURRENCY,
          rate: { windowMs },
          logger: silentLogger,
          progress: silentProgress,
          ...(transport ? { transport } : {}),
        },
        silentLogger,
        silentProgress,
      ),
    );
    const teams = run.value.teams.map((t) => {
      if (t.result?.status !== 'succeeded')
        throw new Error(`team ${t.teamId}: ${t.error?.message ?? t.result?.status}`);
      return t.result;
    });
    // What `vwh sync` pays when it closes the warehouse: the WAL the sync left (up to the loader's
    // WAL_CHECKPOINT_BYTES) written into the file. Without it, work left to the close would go uncounted.
    await wh.database.session.run('CHECKPOINT');
    const cpu = process.cpuUsage(cpuBefore);
    const byThread = Object.fromEntries(
      Object.entries(threadCpuMs())
        .map(([name, ms]) => [name, ms - (threadsBefore[name] ?? 0)] as const)
        .sort((a, b) => b[1] - a[1]),
    );
    const sum = (f: (t: TeamResult) => number) => teams.reduce((n, t) => n + f(t), 0);
    const first = teams[0]?.plan;
    return {
      wallMs: Math.round(run.ms),
      // Teams run in parallel on budgets of their own: the floor is the slowest team's.
      floorMs: Math.max(...teams.map((t) => t.plan?.floorMs ?? 0)),
      requests: sum((t) => t.counters.requests),
      planned: sum((t) => t.plan?.requests ?? 0),
      throttled429: sum((t) => t.counters.throttled429),
      rows: sum((t) => Object.values(t.counters.rowsPerStream).reduce((a, b) => a + b, 0)),
      peakRssMb: Math.round(peakRss / 1e6),
      peakHeapMb: Math.round(peakHeap / 1e6),
      syncCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      syncCpuByThread: byThread,
      serverCpuMs: serverCpu() - serverCpuBefore,
      perActivePrompt: first?.requestsPerActivePrompt ?? 0,
      promptRequests: first?.promptRequests ?? 0,
      otherRequests: first?.otherRequests ?? 0,
      teams,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The peak resident set of this process so far (VmHWM, Linux), in MB; undefined elsewhere. */
function peakRssOfProcessMb(): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1000);
  } catch {
    return undefined;
  }
}

interface ChildInput {
  db: string;
  job: TeamJob;
  today: string;
  windowMs: number;
  serverPid: number | undefined;
  /** Also measure the floor (bench/sync-floor.ts) after the sync, parsing every `floorSampleEvery`-th body. */
  floorSampleEvery?: number;
}

/**
 * `syncRun` of one team in a new process on the warehouse file `db`; its peak RSS is the process's own. `nodeFlags`
 * go to that process's node (`--cpu-prof`).
 */
export function runInChild(input: ChildInput, nodeFlags: string[] = []): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), JSON.stringify(input)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the sync process exited with ${code}: ${out.slice(-500)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as Run);
      } catch (error) {
        reject(error);
      }
    });
  });
}

async function childMain(input: ChildInput): Promise<void> {
  const wh = await Warehouse.open(
    input.db,
    process.env.VWH_BENCH_THREADS ? { threads: Number(process.env.VWH_BENCH_THREADS) } : {},
  );
  try {
    const server: ServerCpu = { cpuMs: () => processCpuMs(input.serverPid) };
    const every = input.floorSampleEvery;
    const recording = every ? new RecordingTransport(new UndiciTransport(), every) : undefined;
    const run = await syncRun(wh, [input.job], input.today, input.windowMs, [server], recording);
    const peak = peakRssOfProcessMb();
    const floor =
      recording && every
        ? await measureFloor(wh.database.session, recording, run.requests, every, run.wallMs).finally(() =>
            recording.dispose(),
          )
        : undefined;
    process.stdout.write(
      `${JSON.stringify({ ...run, teams: [], ...(peak ? { peakRssMb: peak } : {}), ...(floor ? { floor } : {}) })}\n`,
    );
  } finally {
    wh.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await childMain(JSON.parse(process.argv[2] ?? '{}') as ChildInput);
