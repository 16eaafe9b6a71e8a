/**
 * `vwh status` with a cluster: the fleet in one view, from PostgreSQL alone: the workers (alive when their heartbeat
 * is within one lease), each team's current or last job (state, attempts, and while it runs the worker's host and
 * pid), each team's last run and last success from the ledger. `--check` judges the fleet: a team whose last job
 * failed after its retries (FAILED, exit 1), a team never run (NONE, exit 1), a team whose last success is older
 * than the max age (STALE, exit 5).
 */
import { redactUrl } from '../../core/cluster-config.js';
import { BOSS_SCHEMA, type Cluster, NIGHT_QUEUE } from './connect.js';

export interface ClusterStatus {
  cluster: { url: string; data_dir: string; lease_s: number };
  generated_at: string;
  workers: {
    worker_id: string;
    host: string;
    pid: number;
    concurrency: number;
    started_at: string;
    heartbeat_at: string;
    alive: boolean;
  }[];
  teams: {
    team: string;
    job: {
      id: string;
      state: string;
      attempts: number;
      retry_limit: number;
      host: string | null;
      pid: number | null;
      started_at: string | null;
    } | null;
    last_run: {
      run_id: string;
      night_id: string;
      status: string;
      exit_code: number | null;
      host: string;
      pid: number;
      started_at: string;
      ended_at: string | null;
      error: string | null;
    } | null;
    last_success_at: string | null;
  }[];
  check: { status: 'OK' | 'FAILED' | 'STALE' | 'NONE'; exit_code: number; problems: string[] };
  exit_code: number;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export async function clusterStatus(
  cluster: Cluster,
  teams: readonly string[],
  options: { now: number; maxAgeMs: number },
): Promise<ClusterStatus> {
  const { pool, settings } = cluster;
  const workers = (
    await pool.query<{
      worker_id: string;
      host: string;
      pid: number;
      concurrency: number;
      started_at: Date;
      heartbeat_at: Date;
      alive: boolean;
    }>(
      `select worker_id, host, pid, concurrency, started_at, heartbeat_at,
              heartbeat_at > now() - make_interval(secs => $1) as alive
         from vwh.workers where stopped_at is null and heartbeat_at > now() - interval '1 day' order by host, pid`,
      [settings.leaseSeconds],
    )
  ).rows;
  const jobs = (
    await pool.query<{
      id: string;
      team: string;
      state: string;
      retry_count: number;
      retry_limit: number;
      started_on: Date | null;
    }>(
      `select distinct on (singleton_key) id::text, singleton_key as team, state::text, retry_count, retry_limit,
              started_on
         from (select id, singleton_key, state, retry_count, retry_limit, started_on, created_on from ${BOSS_SCHEMA}.job
                where name = $1
               union all
               select id, singleton_key, state, retry_count, retry_limit, started_on, created_on from ${BOSS_SCHEMA}.archive
                where name = $1) j
        order by singleton_key, created_on desc`,
      [NIGHT_QUEUE],
    )
  ).rows;
  const runs = (
    await pool.query<{
      job_id: string;
      run_id: string;
      night_id: string;
      team: string;
      status: string;
      exit_code: number | null;
      host: string;
      pid: number;
      started_at: Date;
      ended_at: Date | null;
      error: string | null;
      last_success: Date | null;
    }>(
      `select distinct on (team) job_id::text, run_id, night_id, team, status, exit_code, host, pid, started_at,
              ended_at, error,
              (select max(ended_at) from vwh.team_runs s where s.team = r.team and s.status in ('succeeded', 'partial'))
                as last_success
         from vwh.team_runs r order by team, started_at desc`,
    )
  ).rows;
  const problems: string[] = [];
  const verdict: { status: ClusterStatus['check']['status'] } = { status: 'OK' };
  const worse = (s: ClusterStatus['check']['status']) => {
    const rank = { OK: 0, STALE: 1, NONE: 2, FAILED: 3 };
    if (rank[s] > rank[verdict.status]) verdict.status = s;
  };
  const teamRows = teams.map((team) => {
    const job = jobs.find((j) => j.team === team);
    const run = runs.find((r) => r.team === team);
    const runningHere = run && job && run.job_id === job.id && job.state === 'active' && !run.ended_at;
    if (job?.state === 'failed') {
      worse('FAILED');
      problems.push(`team ${team}: its last job failed after ${job.retry_count + 1} attempt(s): ${run?.error ?? ''}`);
    } else if (!run?.last_success && job?.state !== 'active') {
      worse('NONE');
      problems.push(`team ${team}: no successful run yet`);
    } else if (run?.last_success && options.now - run.last_success.getTime() > options.maxAgeMs) {
      worse('STALE');
      problems.push(`team ${team}: last refreshed ${run.last_success.toISOString()}, longer ago than the max age`);
    }
    return {
      team,
      job: job
        ? {
            id: job.id,
            state: job.state,
            attempts: job.started_on ? job.retry_count + 1 : job.retry_count,
            retry_limit: job.retry_limit,
            host: runningHere ? run.host : null,
            pid: runningHere ? run.pid : null,
            started_at: iso(job.started_on),
          }
        : null,
      last_run: run
        ? {
            run_id: run.run_id,
            night_id: run.night_id,
            status: run.status,
            exit_code: run.exit_code,
            host: run.host,
            pid: run.pid,
            started_at: run.started_at.toISOString(),
            ended_at: iso(run.ended_at),
            error: run.error,
          }
        : null,
      last_success_at: iso(run?.last_success),
    };
  });
  const { status } = verdict;
  const checkExit = status === 'OK' ? 0 : status === 'STALE' ? 5 : 1;
  return {
    cluster: { url: redactUrl(settings.url), data_dir: settings.dataDir, lease_s: settings.leaseSeconds },
    generated_at: new Date(options.now).toISOString(),
    workers: workers.map((w) => ({
      ...w,
      started_at: w.started_at.toISOString(),
      heartbeat_at: w.heartbeat_at.toISOString(),
    })),
    teams: teamRows,
    check: { status, exit_code: checkExit, problems },
    exit_code: status === 'FAILED' ? 1 : 0,
  };
}

export function formatClusterStatus(s: ClusterStatus): string {
  const lines = [`cluster ${s.cluster.url}, data ${s.cluster.data_dir}`, '', 'workers:'];
  if (s.workers.length === 0) lines.push('  none registered');
  for (const w of s.workers) {
    lines.push(
      `  ${w.host} pid ${w.pid}  ${w.alive ? 'alive' : 'silent'}  last heartbeat ${w.heartbeat_at}  concurrency ${w.concurrency}`,
    );
  }
  lines.push('', 'teams:');
  for (const t of s.teams) {
    const job = t.job
      ? `job ${t.job.state}, attempt ${t.job.attempts} of ${t.job.retry_limit + 1}${t.job.host ? ` on ${t.job.host} pid ${t.job.pid}` : ''}`
      : 'no job';
    const last = t.last_run
      ? `last run ${t.last_run.status} (night ${t.last_run.night_id}, ${t.last_run.host} pid ${t.last_run.pid})`
      : 'never run';
    lines.push(`  ${t.team.padEnd(16)} ${job}; ${last}; last success ${t.last_success_at ?? 'never'}`);
  }
  lines.push('', formatClusterCheck(s).trimEnd());
  return `${lines.join('\n')}\n`;
}

export function formatClusterCheck(s: ClusterStatus): string {
  const head = `${s.check.status}: ${s.teams.length} team(s), ${s.workers.filter((w) => w.alive).length} worker(s) alive`;
  return `${[head, ...s.check.problems.map((p) => `  ${p}`)].join('\n')}\n`;
}
