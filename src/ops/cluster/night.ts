/**
 * `vwh run` and `vwh schedule` in cluster mode: a night is one job per team of the config, sent to the queue with
 * the run's options (a worker runs exactly what was asked); a team whose job is still queued or running is not
 * queued twice (the queue's stately policy would refuse it): the night follows that job instead. `waitNight`
 * prints each team's progress (queued, running on host:pid, retried, done) and returns the teams' outcomes, from
 * which the exit code is `vwh run`'s: the first failed team's, else 2 when one was partial, else 0.
 */
import type { Pool } from 'pg';
import { ExitCode } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { Trigger } from '../ledger.js';
import { BOSS_SCHEMA, type Cluster, NIGHT_QUEUE } from './connect.js';
import type { NightJob, NightRunOptions } from './team-night.js';

export interface QueuedNight {
  nightId: string;
  /** The job of each team (a new one, or the one already queued or running). */
  jobs: { team: string; jobId: string; existing: boolean }[];
}

/**
 * Queues a night for `teams`. With `fireAt` (a cron firing) the night is recorded under that instant's unique key
 * first: a second scheduler firing the same instant finds it taken and queues nothing (returns undefined).
 */
export async function queueNight(
  cluster: Cluster,
  nightId: string,
  teams: readonly string[],
  trigger: Trigger,
  options: NightRunOptions,
  fireAt?: number,
): Promise<QueuedNight | undefined> {
  const { rowCount } = await cluster.pool.query(
    `insert into vwh.nights (night_id, trigger, fire_at, teams, options) values ($1, $2, $3, $4, $5)
       on conflict do nothing`,
    [nightId, trigger, fireAt === undefined ? null : new Date(fireAt), teams, JSON.stringify(options)],
  );
  if (rowCount === 0) return undefined;
  const { settings, boss } = cluster;
  const jobs: QueuedNight['jobs'] = [];
  for (const team of teams) {
    const existing = await openJob(cluster.pool, team);
    if (existing) {
      jobs.push({ team, jobId: existing, existing: true });
      continue;
    }
    const data: NightJob = { night_id: nightId, team, trigger, options };
    const id = await boss.send(NIGHT_QUEUE, data, {
      singletonKey: team,
      retryLimit: settings.retryLimit,
      retryDelay: settings.retryDelaySeconds,
      expireInSeconds: settings.leaseSeconds,
    });
    const jobId = id ?? (await openJob(cluster.pool, team));
    if (jobId) jobs.push({ team, jobId, existing: id === null });
  }
  return { nightId, jobs };
}

/** The team's job still queued, retrying or running, if any. */
async function openJob(pool: Pool, team: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ id: string }>(
    `select id from ${BOSS_SCHEMA}.job where name = $1 and singleton_key = $2 and state in ('created', 'retry', 'active')
      order by created_on desc limit 1`,
    [NIGHT_QUEUE, team],
  );
  return rows[0]?.id;
}

export interface TeamOutcome {
  team: string;
  jobId: string;
  /** The job's state: completed, failed (after its retries), cancelled. */
  state: string;
  /** The last attempt's run status (succeeded, partial, failed, interrupted) and exit code. */
  status: string | null;
  exitCode: number | null;
  attempts: number;
  error: string | null;
  host: string | null;
  pid: number | null;
  durationMs: number | null;
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);

interface JobRow {
  id: string;
  state: string;
  retry_count: number;
  started_on: Date | null;
}

interface RunRow {
  job_id: string;
  team: string;
  attempt: number;
  host: string;
  pid: number;
  status: string;
  exit_code: number | null;
  error: string | null;
  started_at: Date;
  ended_at: Date | null;
}

/** Follows the night's jobs until each is final, printing a line per change through `print`. */
export async function waitNight(
  cluster: Cluster,
  night: QueuedNight,
  print: (line: string, fields: Record<string, unknown>) => void,
  options: { pollMs?: number; stop?: AbortSignal; logger: Logger },
): Promise<TeamOutcome[]> {
  const ids = night.jobs.map((j) => j.jobId);
  const seen = new Map<string, string>();
  for (;;) {
    let jobs: JobRow[];
    let runs: RunRow[];
    try {
      jobs = (
        await cluster.pool.query<JobRow>(
          `select id::text, state::text, retry_count, started_on from ${BOSS_SCHEMA}.job where id = any($1::uuid[])
           union all
           select id::text, state::text, retry_count, started_on from ${BOSS_SCHEMA}.archive where id = any($1::uuid[])`,
          [ids],
        )
      ).rows;
      runs = (
        await cluster.pool.query<RunRow>(
          `select job_id::text, team, attempt, host, pid, status, exit_code, error, started_at, ended_at
             from vwh.team_runs where job_id = any($1::uuid[]) order by attempt`,
          [ids],
        )
      ).rows;
    } catch (error) {
      options.logger.warn("cluster: could not read the night's jobs; retrying", { error: (error as Error).message });
      await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
      continue;
    }
    const outcomes: TeamOutcome[] = [];
    for (const { team, jobId } of night.jobs) {
      const job = jobs.find((j) => j.id === jobId);
      const attemptsRun = runs.filter((r) => r.job_id === jobId);
      const last = attemptsRun.at(-1);
      const state = job?.state ?? 'unknown';
      const key = `${state}|${last?.attempt ?? 0}|${last?.status ?? ''}`;
      if (seen.get(team) !== key) {
        seen.set(team, key);
        const where = last && state === 'active' ? ` on ${last.host} (pid ${last.pid})` : '';
        const detail = last?.status && last.status !== 'running' ? `, last attempt ${last.status}` : '';
        print(`team ${team}: ${state}${where} (attempt ${Math.max(1, last?.attempt ?? 1)}${detail})`, {
          team,
          state,
          attempt: last?.attempt ?? null,
          host: last?.host ?? null,
          pid: last?.pid ?? null,
          ...(last?.error && state !== 'active' ? { error: last.error } : {}),
        });
      }
      outcomes.push({
        team,
        jobId,
        state,
        status: last?.status ?? null,
        exitCode: last?.exit_code ?? null,
        attempts: attemptsRun.length,
        error: last?.error ?? null,
        host: last?.host ?? null,
        pid: last?.pid ?? null,
        durationMs: last?.ended_at ? last.ended_at.getTime() - last.started_at.getTime() : null,
      });
    }
    if (outcomes.every((o) => FINAL.has(o.state)) || options.stop?.aborted) return outcomes;
    await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
  }
}

/** `vwh run`'s exit code for the night: the first failed team's code, else 2 if a team was partial, else 0. */
export function nightExitCode(outcomes: readonly TeamOutcome[]): number {
  const failed = outcomes.find((o) => o.state !== 'completed');
  if (failed) return failed.exitCode && failed.exitCode !== 0 ? failed.exitCode : ExitCode.failure;
  if (outcomes.some((o) => o.status === 'partial')) return ExitCode.partial;
  return ExitCode.ok;
}

/** The night's summary: one line per team and the totals. */
export function formatNightSummary(nightId: string, outcomes: readonly TeamOutcome[]): string {
  const lines = [`night ${nightId}: ${outcomes.length} team(s)`];
  for (const o of outcomes) {
    const took = o.durationMs === null ? '' : ` in ${(o.durationMs / 1000).toFixed(1)} s`;
    const on = o.host ? ` on ${o.host} (pid ${o.pid})` : '';
    const why = o.state !== 'completed' && o.error ? `: ${o.error}` : '';
    lines.push(
      `  ${o.team.padEnd(16)} ${o.state.padEnd(9)} ${o.status ?? '-'} exit ${o.exitCode ?? '-'}, ${o.attempts} attempt(s)${on}${took}${why}`,
    );
  }
  const done = outcomes.filter((o) => o.state === 'completed').length;
  lines.push(`${done} of ${outcomes.length} completed; exit ${nightExitCode(outcomes)}`);
  return `${lines.join('\n')}\n`;
}
