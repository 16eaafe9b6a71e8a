/**
 * The cluster mode (docs/cluster.md): eight teams' first night on one `vwh worker` and on three, each team its own
 * reference server (port 0, scaled rate window), the queue and the ledger in a PostgreSQL of Debian's package started
 * for the bench (test/ops/cluster/postgres.ts). Figures: each run's wall time from queueing to the last team done,
 * the throughput in teams an hour, and the queue's own overhead per job: the job's time in the queue's hands
 * (fetched → completed, pg-boss's clock) less the night it ran (the ledger's start → end), as a share of the night.
 * Size: VWH_BENCH_CLUSTER_TEAMS (8), VWH_BENCH_CLUSTER_DAYS (30) days of history, 1 project x 3 prompts a team.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { clusterSettings } from '../src/core/cluster-config.js';
import { silentLogger } from '../src/core/log.js';
import { runClusterNight } from '../src/ops/cluster/run-night.js';
import { type ReferenceServer, startReferenceServer } from '../src/reference/index.js';
import { startPostgres } from '../test/ops/cluster/postgres.js';
import { type BenchResult, round2, writeResult } from './lib.js';

const TEAMS = Number(process.env.VWH_BENCH_CLUSTER_TEAMS ?? 8);
const DAYS = Number(process.env.VWH_BENCH_CLUSTER_DAYS ?? 30);
const TODAY = '2026-02-10';
const WINDOW_MS = 200;
const BIN = fileURLToPath(new URL('../src/cli/bin.js', import.meta.url));

interface JobFigures {
  team: string;
  night_ms: number;
  queue_ms: number;
}

async function night(
  dir: string,
  name: string,
  workers: number,
  servers: ReferenceServer[],
  url: string,
): Promise<{ wall_ms: number; jobs: JobFigures[] }> {
  const { spawn } = await import('node:child_process');
  const config = join(dir, `${name}.config.json`);
  const teams = servers.map((server, i) => {
    const apiKeyFile = join(dir, `team${i}.key`);
    writeFileSync(apiKeyFile, `${server.demoApiKey}\n`);
    return { team: `${name}-team${i}`, apiKeyFile, baseUrl: server.url };
  });
  const cluster = { dataDir: join(dir, name), heartbeatSeconds: 5, pollSeconds: 0.5, maintenanceSeconds: 5 };
  writeFileSync(
    config,
    JSON.stringify({ teams, threads: 1, exports: { parquet: { outDir: join(dir, name, 'lake') } }, cluster }),
  );
  const env = { ...process.env, VWH_CLUSTER_URL: url, NO_COLOR: '1' };
  const children = Array.from({ length: workers }, () =>
    spawn(process.execPath, [BIN, 'worker', '--config', config, '--log-format', 'json'], { env, stdio: 'ignore' }),
  );
  const settings = clusterSettings(cluster, { VWH_CLUSTER_URL: url });
  if (!settings) throw new Error('no cluster settings');
  const out = { write: () => true } as unknown as NodeJS.WritableStream;
  const started = Date.now();
  const code = await runClusterNight({
    config: { teams, cluster },
    settings,
    options: { today: TODAY, rateWindowMs: WINDOW_MS },
    json: true,
    out,
    logger: silentLogger,
    pollMs: 200,
  });
  const wall = Date.now() - started;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => c.once('exit', r))));
  if (code !== 0) throw new Error(`${name}: the night exited ${code}`);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ team: string; night_ms: number; queue_ms: number }>(
      `select r.team,
              extract(epoch from r.ended_at - r.started_at) * 1000 as night_ms,
              extract(epoch from (j.completed_on - j.started_on) - (r.ended_at - r.started_at)) * 1000 as queue_ms
         from vwh.team_runs r
         join (select id, started_on, completed_on from pgboss.job
               union all select id, started_on, completed_on from pgboss.archive) j on j.id = r.job_id
        where r.team like $1 and r.status = 'succeeded' order by r.team`,
      [`${name}-%`],
    );
    return {
      wall_ms: wall,
      jobs: rows.map((r) => ({ ...r, night_ms: Number(r.night_ms), queue_ms: Number(r.queue_ms) })),
    };
  } finally {
    await db.end();
  }
}

export async function main(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vwh-bench-cluster-'));
  const postgres = await startPostgres();
  const shape = { projects: 1, prompts: 3, historyDays: DAYS, rateWindowMs: WINDOW_MS };
  const servers = await Promise.all(
    Array.from({ length: TEAMS }, (_, i) =>
      startReferenceServer({ port: 0, today: TODAY, demo: true, seed: 100 + i, ...shape }),
    ),
  );
  try {
    const load = loadavg()[0] ?? 0;
    const one = await night(dir, 'one', 1, servers, postgres.url);
    const three = await night(dir, 'three', 3, servers, postgres.url);
    const summary = (r: typeof one) => {
      const nights = r.jobs.reduce((a, j) => a + j.night_ms, 0);
      const queue = r.jobs.reduce((a, j) => a + j.queue_ms, 0);
      return {
        wall_s: round2(r.wall_ms / 1000),
        teams_per_hour: round2((TEAMS / r.wall_ms) * 3_600_000),
        mean_night_s: round2(nights / r.jobs.length / 1000),
        queue_ms_per_job: round2(queue / r.jobs.length),
        queue_share_pct: round2((100 * queue) / nights),
      };
    };
    const a = summary(one);
    const b = summary(three);
    const worst = Math.max(a.queue_share_pct, b.queue_share_pct);
    const result: BenchResult = {
      name: 'cluster',
      description: `${TEAMS} teams' first night (1 project x 3 prompts x ${DAYS} days each, its own reference server, rate window ${WINDOW_MS} ms) on 1 and on 3 vwh workers (child processes of dist/), PostgreSQL ${postgres.url.replace(/:[^:@/]*@/, ':***@')} on loopback; ${cpus().length} cores, load average ${round2(load)} at the start. queue_ms_per_job = (pg-boss completed_on - started_on) - (ledger ended_at - started_at): the queue's hand-offs, the ledger's writes and the completion.`,
      ratios: {
        speedup_3_workers: round2(a.wall_s / b.wall_s),
        queue_share_pct_worst: worst,
      },
      figures: {
        one_worker_wall_s: a.wall_s,
        one_worker_teams_per_hour: a.teams_per_hour,
        one_worker_mean_night_s: a.mean_night_s,
        one_worker_queue_ms_per_job: a.queue_ms_per_job,
        three_workers_wall_s: b.wall_s,
        three_workers_teams_per_hour: b.teams_per_hour,
        three_workers_mean_night_s: b.mean_night_s,
        three_workers_queue_ms_per_job: b.queue_ms_per_job,
      },
      targets: { queue_overhead: { target: "< 1 % of a team's night", met: worst < 1 } },
      details: { one_worker: one.jobs, three_workers: three.jobs },
    };
    writeResult(result);
    return result;
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    postgres.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
