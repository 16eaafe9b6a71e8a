/**
 * `vwh status`'s report: the last runs and their stages, freshness per stream and project, rows per table, rejected
 * rows and budget of the latest sync per team, and the model nodes that failed (or warned) in the latest build.
 * Read-only; while a run holds the warehouse, the published copy answers (and the report says so). The JSON shape
 * (snake_case keys, arrays sorted) is stable for monitoring.
 */
import { type Age, DEFAULT_FRESHNESS } from '../core/config.js';
import { ExitCode } from '../core/errors.js';
import type { LockHolder } from '../core/lock-file.js';
import { Database } from '../warehouse/duckdb.js';
import { opsDb } from '../warehouse/kysely/index.js';
import { Session } from '../warehouse/session.js';
import { type FreshnessRow, type FreshnessStatus, freshness, worstFreshness } from './freshness.js';
import { type RunRecord, readLedgerMirror, recentRuns, runRecord } from './ledger.js';
import { runInProgress } from './lock.js';
import { chooseReadSource, describeReadSource } from './read-source.js';

export type CheckStatus = 'ok' | 'failed' | 'interrupted' | 'none' | 'stale';

export interface StatusReport {
  generated_at: string;
  source: { path: string; kind: 'warehouse' | 'published'; note: string | null };
  /** The run holding the run lock now (null when none): from the lock, and its stages so far from the ledger. */
  run_in_progress: {
    run_id: string | null;
    command: string;
    pid: number;
    host: string;
    started_at: string;
    /** The stage working now (null before the first, or when the ledger could not be read). */
    stage: string | null;
    stages: RunRecord['stages'];
  } | null;
  /** The newest runs that are not in progress, newest first; a run killed before its end is `interrupted`. */
  runs: RunRecord[];
  freshness: { status: FreshnessStatus; warn_after: Age; error_after: Age; streams: FreshnessRow[] };
  tables: Array<{ schema: string; table: string; rows: number }>;
  rejected_rows: Array<{ team_id: string; run_id: string; stream: string; rows: number }>;
  budget: Array<{
    team_id: string;
    run_id: string;
    started_at: string;
    status: string;
    requests: number;
    throttled_429: number;
    retries: number;
  }>;
  models_failed: Array<{ node: string; status: string; message: string | null }>;
  /** What `vwh status --check` judges and exits with (docs/operations.md): 0 ok, 1 failed/interrupted/none, 2 stale. */
  check: { status: CheckStatus; message: string; exit_code: number };
  /** 0 fresh and the last run finished; 1 stale past error_after, or the last run failed or was interrupted. */
  exit_code: number;
}

export interface StatusOptions {
  db: string;
  published?: string | undefined;
  now: number;
  runs?: number;
  warn_after?: Age | undefined;
  error_after?: Age | undefined;
  /** `--max-age`: the last successful run must have ended within this many ms, else the check says stale. */
  max_age_ms?: number | undefined;
  /** The run lock's staleness limit (schedule.staleLockMinutes). */
  stale_lock_ms?: number | undefined;
}

/** A run the ledger says is running but whose process is gone. */
const KILLED = 'the process ended before the run recorded its end (vwh run marks it interrupted next time)';

/** The report, and `note` for the line that names the file read (stderr in the CLI). */
export async function statusReport(o: StatusOptions, note: (line: string) => void = () => {}): Promise<StatusReport> {
  const chosen = await chooseReadSource({ db: o.db, published: o.published });
  note(describeReadSource(chosen));
  const source: StatusReport['source'] = {
    path: chosen.path,
    kind: chosen.kind,
    note:
      chosen.kind === 'published'
        ? `${chosen.warehouse} is held by ${chosen.held_by}; this is the published copy${chosen.run ? ` of run ${chosen.run.run_id}` : ''}, published ${chosen.published_at}`
        : null,
  };
  const db = await Database.open(chosen.path, { access_mode: 'READ_ONLY' });
  const session = await Session.create(await db.connect());
  try {
    const has = async (schema: string, table: string) =>
      (await session.all('select 1 from duckdb_tables() where schema_name = ? and table_name = ?', [schema, table]))
        .length > 0;
    const limit = o.runs ?? 5;
    // The published copy's ledger ends where that copy was made: the mirror beside the warehouse has the rest.
    const mirrored = chosen.kind === 'published' ? readLedgerMirror(chosen.warehouse) : undefined;
    const ledger =
      mirrored ??
      ((await has('ops', 'pipeline_runs')) ? (await recentRuns(opsDb(session), limit + 1)).map(runRecord) : []);
    const { inProgress, runs } = splitRuns(
      ledger,
      runInProgress(chosen.warehouse, o.now, o.stale_lock_ms),
      chosen.kind === 'published' && !mirrored,
    );
    const limits = {
      warn_after: o.warn_after ?? DEFAULT_FRESHNESS.warn_after,
      error_after: o.error_after ?? DEFAULT_FRESHNESS.error_after,
    };
    const streams = (await has('ops', 'sync_state')) ? await freshness(session, o.now, limits) : [];
    const tables = await session.all<{ schema: string; table: string }>(
      `select schema_name as "schema", table_name as "table" from duckdb_tables()
        where schema_name in ('raw', 'snapshots', 'marts') order by 1, 2`,
    );
    const counted: StatusReport['tables'] = [];
    for (const t of tables) {
      const rows = await session.all<{ n: number }>(`select count(*)::bigint as n from "${t.schema}"."${t.table}"`);
      counted.push({ ...t, rows: Number(rows[0]?.n ?? 0) });
    }
    const latestSync = `(select team_id, run_id, started_at, status, requests, throttled_429, retries,
                           row_number() over (partition by team_id order by started_at desc) as k from ops.sync_runs) s`;
    const budget = (await has('ops', 'sync_runs'))
      ? await session.all<StatusReport['budget'][number]>(
          `select team_id, run_id, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') as started_at, status, requests, throttled_429, retries
             from ${latestSync} where k = 1 order by team_id`,
        )
      : [];
    const rejected = (await has('ops', 'rejected_rows'))
      ? await session.all<StatusReport['rejected_rows'][number]>(
          `select r.team_id, r.run_id, r.stream, count(*)::bigint as rows from ops.rejected_rows r
             join ${latestSync} on s.team_id = r.team_id and s.run_id = r.run_id and s.k = 1
            group by all order by 1, 3`,
        )
      : [];
    const modelsFailed = (await has('ops', 'model_runs'))
      ? await session.all<StatusReport['models_failed'][number]>(
          `select node, status, message from ops.model_runs
            where run_id = (select run_id from ops.model_runs order by started_at desc limit 1)
              and status not in ('success', 'pass')
            order by node`,
        )
      : [];
    const worst = worstFreshness(streams);
    const lastRun = runs[0];
    const failed = lastRun?.status === 'failed' || lastRun?.status === 'interrupted';
    return {
      generated_at: new Date(o.now).toISOString(),
      source,
      run_in_progress: inProgress,
      runs: runs.slice(0, limit),
      freshness: { status: worst, ...limits, streams },
      tables: counted,
      rejected_rows: rejected.map((r) => ({ ...r, rows: Number(r.rows) })),
      budget: budget.map((b) => ({
        ...b,
        requests: Number(b.requests),
        throttled_429: Number(b.throttled_429),
        retries: Number(b.retries),
      })),
      models_failed: modelsFailed,
      check: judge(runs, worst, o),
      exit_code: failed ? ExitCode.failure : worst === 'error' ? ExitCode.stale : ExitCode.ok,
    };
  } finally {
    session.close();
    db.close();
  }
}

/**
 * The run in progress (the live holder of the run lock, with its ledger rows when the ledger has them) apart from the
 * runs that ended. A run the ledger calls `running` that no live process holds was killed: `interrupted`. In a
 * published copy read without a mirror, the newest such run is the one that made the copy, whose end it cannot know.
 */
function splitRuns(
  ledger: RunRecord[],
  holder: LockHolder | undefined,
  copyWithoutMirror: boolean,
): { inProgress: StatusReport['run_in_progress']; runs: RunRecord[] } {
  const live = holder ? ledger.find((r) => r.run_id === holder.job) : undefined;
  const runs = ledger
    .filter((r) => r !== live)
    .map((r, i) => {
      if (r.status !== 'running') return r;
      if (copyWithoutMirror && i === 0) {
        return {
          ...r,
          status: 'unknown',
          error: 'running when this published copy was made; its end is in the warehouse',
        };
      }
      const stages = r.stages.map((s) => (s.status === 'running' ? { ...s, status: 'interrupted', error: KILLED } : s));
      return { ...r, status: 'interrupted', error: r.error ?? KILLED, stages };
    });
  if (!holder) return { inProgress: null, runs };
  const current = live?.stages.find((s) => s.status === 'running');
  return {
    inProgress: {
      run_id: holder.job ?? null,
      command: holder.command,
      pid: holder.pid,
      host: holder.host,
      started_at: holder.startedAt,
      stage: current?.stage ?? null,
      stages: live?.stages ?? [],
    },
    runs,
  };
}

/** `--check`: 1 when the last run that ended failed, was interrupted or there is none; 5 when the data is stale. */
function judge(runs: RunRecord[], worst: FreshnessStatus, o: StatusOptions): StatusReport['check'] {
  const last = runs.find((r) => r.status !== 'unknown');
  if (!last) return { status: 'none', message: 'no vwh run recorded yet', exit_code: 1 };
  if (last.status === 'failed' || last.status === 'interrupted') {
    return {
      status: last.status,
      message: `the last run ${last.run_id} ${last.status}${last.error ? `: ${last.error.split('\n')[0]}` : ''}`,
      exit_code: 1,
    };
  }
  const good = runs.find((r) => r.status === 'succeeded' || r.status === 'partial');
  const endedAt = good ? Date.parse(good.ended_at ?? good.started_at) : Number.NaN;
  if (o.max_age_ms !== undefined && !(o.now - endedAt <= o.max_age_ms)) {
    return {
      status: 'stale',
      message: good
        ? `the last successful run ${good.run_id} ended ${hours(o.now - endedAt)} ago, more than --max-age ${hours(o.max_age_ms)}`
        : 'no run has succeeded yet',
      exit_code: ExitCode.stale,
    };
  }
  if (worst === 'error') {
    return {
      status: 'stale',
      message: 'a stream is past freshness.error_after (vwh status lists it)',
      exit_code: ExitCode.stale,
    };
  }
  return {
    status: 'ok',
    message: `the last run ${last.run_id} ${last.status}${good ? `; the last successful one ended ${hours(o.now - endedAt)} ago` : ''}`,
    exit_code: 0,
  };
}

function hours(ms: number): string {
  return ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 3_600_000).toFixed(1)} h`;
}

/** `--check`'s one line: `OK the last run … succeeded; …`. */
export function formatCheck(r: StatusReport): string {
  const running = r.run_in_progress
    ? `; run ${r.run_in_progress.run_id ?? '(id unknown)'} in progress since ${r.run_in_progress.started_at}`
    : '';
  return `${r.check.status.toUpperCase()} ${r.check.message}${running}\n`;
}

/** The report for a person: one screen. */
export function formatStatus(r: StatusReport): string {
  const lines: string[] = [];
  if (r.source.note) lines.push(`note: ${r.source.note}`);
  const live = r.run_in_progress;
  if (live) {
    lines.push(
      `Run in progress: ${live.run_id ?? '(id unknown: an older vwh)'}  ${live.command}, PID ${live.pid} on ${live.host}, since ${live.started_at}${live.stage ? `, now in ${live.stage}` : ''}`,
    );
    for (const s of live.stages) {
      lines.push(`      ${s.stage.padEnd(8)} ${s.status.padEnd(11)} ${ms(s.duration_ms).padStart(8)}`);
    }
    lines.push('');
  }
  lines.push('Last runs:');
  if (r.runs.length === 0) lines.push('  none yet (vwh run)');
  for (const run of r.runs) {
    lines.push(
      `  ${run.started_at}  ${run.run_id}  ${run.trigger.padEnd(8)} ${run.status.padEnd(11)} ${ms(run.duration_ms)}`,
    );
    for (const s of run.stages) {
      lines.push(
        `      ${s.stage.padEnd(8)} ${s.status.padEnd(11)} ${ms(s.duration_ms).padStart(8)}${s.error ? `  ${s.error.split('\n')[0]}` : ''}`,
      );
    }
  }
  const stale = r.freshness.streams.filter((s) => s.status !== 'pass');
  lines.push(
    '',
    `Freshness: ${r.freshness.status.toUpperCase()} (warn after ${age(r.freshness.warn_after)}, error after ${age(r.freshness.error_after)}; ${r.freshness.streams.length} stream × project pairs)`,
  );
  for (const s of stale.slice(0, 20)) {
    lines.push(
      `  ${s.status.toUpperCase().padEnd(5)} ${s.stream} ${s.project_id}: newest day ${s.newest_day} (${s.age_hours} h old)`,
    );
  }
  if (stale.length > 20) lines.push(`  … ${stale.length - 20} more (vwh status --json)`);
  lines.push('', 'Latest sync per team (budget used):');
  for (const b of r.budget) {
    lines.push(
      `  ${b.team_id}: ${b.status}, ${b.requests} requests, ${b.throttled_429} throttled (429), ${b.retries} retries, at ${b.started_at}`,
    );
  }
  if (r.rejected_rows.length) {
    lines.push('', 'Rejected rows (latest sync):');
    for (const x of r.rejected_rows)
      lines.push(`  ${x.team_id} ${x.stream}: ${x.rows} (ops.rejected_rows where run_id = '${x.run_id}')`);
  }
  lines.push('', `Models not successful in the latest build: ${r.models_failed.length || 'none'}`);
  for (const m of r.models_failed)
    lines.push(`  ${m.status.toUpperCase().padEnd(7)} ${m.node}${m.message ? `: ${m.message.split('\n')[0]}` : ''}`);
  lines.push('', 'Rows per table:');
  for (const t of r.tables) lines.push(`  ${`${t.schema}.${t.table}`.padEnd(44)} ${String(t.rows).padStart(10)}`);
  return `${lines.join('\n')}\n`;
}

function ms(v: number | null): string {
  if (v === null) return '-';
  return v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`;
}

function age(a: Age): string {
  return `${a.count} ${a.period}${a.count === 1 ? '' : 's'}`;
}
